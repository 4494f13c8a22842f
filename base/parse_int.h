// Whole-text integer parsing on std::string_view (Debian's Abseil has its own
// string_view, so absl::SimpleAtoi does not take one).
#ifndef PROFDIFF_BASE_PARSE_INT_H_
#define PROFDIFF_BASE_PARSE_INT_H_

#include <charconv>
#include <cstdint>
#include <string_view>

namespace profdiff::base {

// True and `out` set when all of `text` is a base-10 integer that fits (an
// optional '-', no spaces, no '+'); false and `out` unchanged otherwise.
inline bool ParseInt64(std::string_view text, int64_t& out) {
  int64_t value = 0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty())
    return false;
  out = value;
  return true;
}

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_PARSE_INT_H_
