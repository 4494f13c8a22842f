// Profiler traces are written nearly in time order, so most of the sorts
// analysis needs find their input already sorted: check in O(n) before paying
// O(n log n).
#ifndef PROFDIFF_ANALYSIS_SORT_UNLESS_SORTED_H_
#define PROFDIFF_ANALYSIS_SORT_UNLESS_SORTED_H_

#include <algorithm>

namespace profdiff::analysis {

template <typename It, typename Less>
void SortUnlessSorted(It begin, It end, Less less) {
  if (!std::is_sorted(begin, end, less)) std::sort(begin, end, less);
}

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_SORT_UNLESS_SORTED_H_
