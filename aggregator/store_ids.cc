#include "aggregator/store_ids.h"

#include "base/status_annotate.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {

absl::Status ValidateStoreId(std::string_view what, std::string_view id) {
  const auto invalid = [&](std::string_view rule) {
    return absl::InvalidArgumentError(
        base::StrCat(what, " ", base::QuoteBytes(id), ": ", rule));
  };
  if (id.empty()) return invalid("must not be empty");
  if (id.size() > kMaxIdBytes) {
    return invalid(base::StrCat("is ", id.size(), " bytes, the limit is ", kMaxIdBytes));
  }
  if (id == "." || id == "..") return invalid("must not be \".\" or \"..\"");
  for (size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return invalid(base::StrCat("byte ", i, " is not one of [A-Za-z0-9._-]"));
  }
  return absl::OkStatus();
}

}  // namespace profdiff::aggregator
