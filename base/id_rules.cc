#include "base/id_rules.h"

#include "base/status_annotate.h"
#include "base/str_cat.h"

namespace profdiff::base {

bool IsIdChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

bool IsValidId(std::string_view id) { return ValidateId("id", id).ok(); }

absl::Status ValidateId(std::string_view what, std::string_view id) {
  const auto invalid = [&](std::string_view rule) {
    return absl::InvalidArgumentError(
        StrCat(what, " ", QuoteBytes(id), ": ", rule));
  };
  if (id.empty()) return invalid("must not be empty");
  if (id.size() > kMaxIdBytes) {
    return invalid(
        StrCat("is ", id.size(), " bytes, the limit is ", kMaxIdBytes));
  }
  if (id == "." || id == "..") return invalid("must not be \".\" or \"..\"");
  for (size_t i = 0; i < id.size(); ++i) {
    if (!IsIdChar(id[i]))
      return invalid(StrCat("byte ", i, " is not one of [A-Za-z0-9._-]"));
  }
  return absl::OkStatus();
}

}  // namespace profdiff::base
