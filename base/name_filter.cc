#include "base/name_filter.h"

#include "base/str_cat.h"

namespace profdiff::base {

absl::StatusOr<NameFilter> NameFilter::Compile(const std::string& pattern) {
  NameFilter filter;
  if (pattern.empty()) return filter;
  // std::regex reports bad patterns by exception; this is the only place one can arise.
  try {
    filter.regex_.emplace(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return absl::InvalidArgumentError(StrCat("--filter ", pattern, ": ", e.what()));
  }
  return filter;
}

bool NameFilter::Matches(std::string_view name) const {
  return !regex_ || std::regex_search(name.begin(), name.end(), *regex_);
}

}  // namespace profdiff::base
