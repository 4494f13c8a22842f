// Comparing numbers two implementations sum in different orders (SQL in the
// store, C++ in the differ): equal up to rounding, relative to the expected
// value (absolute below 1).
#ifndef PROFDIFF_TESTS_SUPPORT_SUMS_AGREE_H_
#define PROFDIFF_TESTS_SUPPORT_SUMS_AGREE_H_

#include <algorithm>
#include <cmath>

namespace profdiff::test_support {

inline bool SumsAgree(double expected, double actual) {
  return std::abs(expected - actual) <=
         1e-9 * std::max(1.0, std::abs(expected));
}

}  // namespace profdiff::test_support

#endif  // PROFDIFF_TESTS_SUPPORT_SUMS_AGREE_H_
