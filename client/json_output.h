// The JSON every `--format json` prints: the proto with its field names
// (snake_case), every field present (zeros included, so scripts need no
// defaults), indented. A value of an enum with display texts (diff.proto's
// `display_text`: a diff's status, change, compared and metric) is written as
// that text, the word the tables print ("unchanged", not "CHANGE_UNCHANGED");
// other enums by their value names.
#ifndef PROFDIFF_CLIENT_JSON_OUTPUT_H_
#define PROFDIFF_CLIENT_JSON_OUTPUT_H_

#include <cstdio>
#include <string>
#include <string_view>

#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <google/protobuf/message.h>

namespace profdiff::client {

// Internal only if protobuf cannot print `message`. Written by json_writer.h,
// byte for byte what protobuf's printer writes (ToJsonWithProtobuf).
absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message);

// ToJson's text written to `stream` as it is made, in 64 KiB pieces (a large
// profile is never whole in memory twice). Unavailable when a write fails.
absl::Status StreamJson(const google::protobuf::Message& message,
                        std::FILE* stream);

// The same text from protobuf's own printer: the reference json_writer.h is
// tested against, and the printer of what it does not render (maps,
// well-known types).
absl::StatusOr<std::string> ToJsonWithProtobuf(
    const google::protobuf::Message& message);

// Reads what ToJson writes (and proto3 JSON) into `message`: display texts
// become their enum values again. InvalidArgument naming the type and what
// protobuf found wrong (an unknown field or enum text, a malformed document).
absl::Status FromJson(std::string_view json,
                      google::protobuf::Message& message);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_JSON_OUTPUT_H_
