// The JSON every `--format json` prints: the proto with its field names
// (snake_case), every field present (zeros included, so scripts need no
// defaults), indented. A value of an enum with display texts (diff.proto's
// `display_text`: a diff's status, change, compared and metric) is written as
// that text, the word the tables print ("unchanged", not "CHANGE_UNCHANGED");
// other enums by their value names.
#ifndef PROFDIFF_CLIENT_JSON_OUTPUT_H_
#define PROFDIFF_CLIENT_JSON_OUTPUT_H_

#include <string>
#include <string_view>

#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <google/protobuf/message.h>

namespace profdiff::client {

// Internal only if protobuf cannot print `message`.
absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message);

// Reads what ToJson writes (and proto3 JSON) into `message`: display texts
// become their enum values again. InvalidArgument naming the type and what
// protobuf found wrong (an unknown field or enum text, a malformed document).
absl::Status FromJson(std::string_view json,
                      google::protobuf::Message& message);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_JSON_OUTPUT_H_
