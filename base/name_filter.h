// `--filter REGEX` on row names (RE2 syntax, matched anywhere in the name),
// shared by `show` and `diff`, and by the differ service for a client's
// DiffRequest. RE2 matches in time linear in the name and without recursion, so
// no pattern a remote client sends can hang or crash the server (std::regex
// backtracks: "(a*)*b" takes exponential time, long names overflow its stack).
#ifndef PROFDIFF_BASE_NAME_FILTER_H_
#define PROFDIFF_BASE_NAME_FILTER_H_

#include <memory>
#include <string>
#include <string_view>

#include <absl/status/statusor.h>

namespace re2 {
class RE2;
}

namespace profdiff::base {

class NameFilter {
 public:
  // The longest pattern accepted.
  static constexpr size_t kMaxPatternBytes = 4096;

  // An empty pattern matches every name. InvalidArgument naming the pattern
  // when it does not compile, needs more than RE2's memory budget, or is longer
  // than kMaxPatternBytes.
  static absl::StatusOr<NameFilter> Compile(const std::string& pattern);
  bool Matches(std::string_view name) const;

 private:
  std::shared_ptr<const re2::RE2>
      regex_;  // shared: filters are copied with their options
};

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_NAME_FILTER_H_
