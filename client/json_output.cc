#include "client/json_output.h"

#include <google/protobuf/util/json_util.h>

#include "base/str_cat.h"

namespace profdiff::client {

absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions json;
  json.preserve_proto_field_names = true;
  json.always_print_primitive_fields = true;
  json.add_whitespace = true;
  std::string out;
  const auto status =
      google::protobuf::util::MessageToJsonString(message, &out, json);
  if (!status.ok())
    return absl::InternalError(
        base::StrCat("JSON output: ", status.ToString()));
  return out;
}

}  // namespace profdiff::client
