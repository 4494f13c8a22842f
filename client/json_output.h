// The JSON every `--format json` prints: the proto with its field names
// (snake_case), every field present (zeros included, so scripts need no
// defaults), indented.
#ifndef PROFDIFF_CLIENT_JSON_OUTPUT_H_
#define PROFDIFF_CLIENT_JSON_OUTPUT_H_

#include <string>

#include <absl/status/statusor.h>
#include <google/protobuf/message.h>

namespace profdiff::client {

absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_JSON_OUTPUT_H_
