#include "client/json_output.h"

#include <cerrno>
#include <cstring>
#include <memory>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/type.pb.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver.h>
#include <google/protobuf/util/type_resolver_util.h>

#include "base/status_macros.h"
#include "base/str_cat.h"
#include "client/json_writer.h"
#include "differ/display_text.h"

namespace profdiff::client {
namespace {

namespace pb = google::protobuf;

constexpr char kTypeUrlPrefix[] = "type.googleapis.com";

// The generated pool's types, as MessageToJsonString resolves them, except that
// an enum with display texts names its values by them: protobuf's JSON printer
// and parser write and read whatever names the resolver gives, so the text
// needs no pass of its own over the document.
class DisplayTextResolver final : public pb::util::TypeResolver {
 public:
  DisplayTextResolver()
      : pool_(pb::util::NewTypeResolverForDescriptorPool(
            kTypeUrlPrefix, pb::DescriptorPool::generated_pool())) {}

  pb::util::Status ResolveMessageType(const std::string& type_url,
                                      pb::Type* type) override {
    return pool_->ResolveMessageType(type_url, type);
  }

  pb::util::Status ResolveEnumType(const std::string& type_url,
                                   pb::Enum* enum_type) override {
    pb::util::Status status = pool_->ResolveEnumType(type_url, enum_type);
    if (!status.ok()) return status;
    const pb::EnumDescriptor* descriptor =
        pb::DescriptorPool::generated_pool()->FindEnumTypeByName(
            enum_type->name());
    if (descriptor == nullptr || !differ::HasDisplayText(*descriptor))
      return status;
    for (pb::EnumValue& value : *enum_type->mutable_enumvalue())
      value.set_name(differ::DisplayText(*descriptor, value.number()));
    return status;
  }

 private:
  const std::unique_ptr<pb::util::TypeResolver> pool_;
};

std::string TypeUrl(const pb::Message& message) {
  return base::StrCat(kTypeUrlPrefix, "/",
                      message.GetDescriptor()->full_name());
}

}  // namespace

absl::StatusOr<std::string> ToJson(const pb::Message& message) {
  if (!CanWriteJson(*message.GetDescriptor()))
    return ToJsonWithProtobuf(message);
  std::string out;
  WriteJson(message, out);
  return out;
}

absl::Status StreamJson(const pb::Message& message, std::FILE* stream) {
  if (!CanWriteJson(*message.GetDescriptor())) {
    PD_ASSIGN_OR_RETURN(const std::string text, ToJsonWithProtobuf(message));
    if (std::fwrite(text.data(), 1, text.size(), stream) != text.size() ||
        std::fflush(stream) != 0) {
      return absl::UnavailableError(
          base::StrCat("JSON output: write: ", std::strerror(errno)));
    }
    return absl::OkStatus();
  }
  bool failed = false;
  int error = 0;
  std::string out;
  WriteJson(message, out, [&](std::string& text) {
    if (!failed &&
        std::fwrite(text.data(), 1, text.size(), stream) != text.size()) {
      failed = true;
      error = errno;
    }
    text.clear();
  });
  if (failed || std::fflush(stream) != 0) {
    return absl::UnavailableError(base::StrCat(
        "JSON output: write: ", std::strerror(failed ? error : errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ToJsonWithProtobuf(const pb::Message& message) {
  pb::util::JsonPrintOptions json;
  json.preserve_proto_field_names = true;
  json.always_print_primitive_fields = true;
  json.add_whitespace = true;
  DisplayTextResolver resolver;
  std::string out;
  const auto status = pb::util::BinaryToJsonString(
      &resolver, TypeUrl(message), message.SerializeAsString(), &out, json);
  if (!status.ok())
    return absl::InternalError(
        base::StrCat("JSON output: ", status.ToString()));
  return out;
}

absl::Status FromJson(std::string_view json, pb::Message& message) {
  DisplayTextResolver resolver;
  std::string binary;
  const auto status = pb::util::JsonToBinaryString(
      &resolver, TypeUrl(message), pb::StringPiece(json.data(), json.size()),
      &binary, pb::util::JsonParseOptions());
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        base::StrCat("JSON ", message.GetDescriptor()->full_name(), ": ",
                     status.ToString()));
  }
  if (!message.ParseFromString(binary)) {
    return absl::InvalidArgumentError(
        base::StrCat("JSON ", message.GetDescriptor()->full_name(),
                     ": not a valid message"));
  }
  return absl::OkStatus();
}

}  // namespace profdiff::client
