#include "base/name_filter.h"

#include <re2/re2.h>

#include "base/str_cat.h"

namespace profdiff::base {

absl::StatusOr<NameFilter> NameFilter::Compile(const std::string& pattern) {
  NameFilter filter;
  if (pattern.empty()) return filter;
  if (pattern.size() > kMaxPatternBytes) {
    return absl::InvalidArgumentError(
        StrCat("--filter: the pattern is ", pattern.size(),
               " bytes, the limit is ", kMaxPatternBytes));
  }
  RE2::Options options;
  options.set_log_errors(false);  // the error comes back in the status instead
  auto regex = std::make_shared<const RE2>(pattern, options);
  if (!regex->ok()) {
    return absl::InvalidArgumentError(
        StrCat("--filter ", pattern, ": ", regex->error()));
  }
  filter.regex_ = std::move(regex);
  return filter;
}

bool NameFilter::Matches(std::string_view name) const {
  return regex_ == nullptr ||
         RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), *regex_);
}

}  // namespace profdiff::base
