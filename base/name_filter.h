// `--filter REGEX` on row names (ECMAScript syntax, matched anywhere in the name), shared by
// `show` and `diff`. A bad pattern is an InvalidArgument naming it, never an exception.
#ifndef PROFDIFF_BASE_NAME_FILTER_H_
#define PROFDIFF_BASE_NAME_FILTER_H_

#include <optional>
#include <regex>
#include <string>
#include <string_view>

#include <absl/status/statusor.h>

namespace profdiff::base {

class NameFilter {
 public:
  // An empty pattern matches every name.
  static absl::StatusOr<NameFilter> Compile(const std::string& pattern);
  bool Matches(std::string_view name) const;

 private:
  std::optional<std::regex> regex_;
};

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_NAME_FILTER_H_
