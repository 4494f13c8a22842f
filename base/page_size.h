// The page sizes memory is mapped and rounded in: x86-64's small page and its
// transparent huge page.
#ifndef PROFDIFF_BASE_PAGE_SIZE_H_
#define PROFDIFF_BASE_PAGE_SIZE_H_

#include <cstddef>

namespace profdiff::base {

inline constexpr size_t kSmallPageBytes = size_t{4} << 10;
inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// `bytes` rounded up to a multiple of `unit`.
constexpr size_t RoundUpTo(size_t bytes, size_t unit) {
  return (bytes + unit - 1) / unit * unit;
}

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_PAGE_SIZE_H_
