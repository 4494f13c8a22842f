#include "analysis/interval_set.h"

#include <algorithm>

#include "analysis/sort_unless_sorted.h"

namespace profdiff::analysis {

std::vector<Interval> MergeIntervals(std::vector<Interval> intervals) {
  SortUnlessSorted(intervals.begin(), intervals.end(),
                   [](const Interval& x, const Interval& y) {
                     return x.start_ns < y.start_ns ||
                            (x.start_ns == y.start_ns && x.end_ns < y.end_ns);
                   });
  std::vector<Interval> merged;
  merged.reserve(intervals.size());
  for (const Interval& interval : intervals) {
    if (interval.end_ns <= interval.start_ns) continue;
    if (!merged.empty() && interval.start_ns <= merged.back().end_ns) {
      merged.back().end_ns = std::max(merged.back().end_ns, interval.end_ns);
    } else {
      merged.push_back(interval);
    }
  }
  return merged;
}

int64_t TotalLength(const std::vector<Interval>& merged) {
  int64_t total = 0;
  for (const Interval& interval : merged) total += interval.length_ns();
  return total;
}

std::vector<Interval> Clip(const std::vector<Interval>& merged, int64_t lo,
                           int64_t hi) {
  std::vector<Interval> out;
  // First interval that ends after lo.
  auto it = std::upper_bound(
      merged.begin(), merged.end(), lo,
      [](int64_t t, const Interval& x) { return t < x.end_ns; });
  for (; it != merged.end() && it->start_ns < hi; ++it) {
    const Interval clipped{std::max(it->start_ns, lo),
                           std::min(it->end_ns, hi)};
    if (clipped.end_ns > clipped.start_ns) out.push_back(clipped);
  }
  return out;
}

std::vector<Interval> Union(const std::vector<Interval>& a,
                            const std::vector<Interval>& b) {
  std::vector<Interval> all;
  all.reserve(a.size() + b.size());
  std::merge(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all),
             [](const Interval& x, const Interval& y) {
               return x.start_ns < y.start_ns;
             });
  std::vector<Interval> merged;
  merged.reserve(all.size());
  for (const Interval& interval : all) {
    if (!merged.empty() && interval.start_ns <= merged.back().end_ns) {
      merged.back().end_ns = std::max(merged.back().end_ns, interval.end_ns);
    } else {
      merged.push_back(interval);
    }
  }
  return merged;
}

std::vector<Interval> Intersection(const std::vector<Interval>& a,
                                   const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t lo = std::max(a[i].start_ns, b[j].start_ns);
    const int64_t hi = std::min(a[i].end_ns, b[j].end_ns);
    if (hi > lo) out.push_back({lo, hi});
    if (a[i].end_ns < b[j].end_ns) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

std::vector<Interval> Difference(const std::vector<Interval>& a,
                                 const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t j = 0;
  for (Interval rest : a) {
    while (j < b.size() && b[j].end_ns <= rest.start_ns) ++j;
    for (size_t k = j; k < b.size() && b[k].start_ns < rest.end_ns; ++k) {
      if (b[k].start_ns > rest.start_ns)
        out.push_back({rest.start_ns, b[k].start_ns});
      rest.start_ns = std::max(rest.start_ns, b[k].end_ns);
    }
    if (rest.end_ns > rest.start_ns) out.push_back(rest);
  }
  return out;
}

}  // namespace profdiff::analysis
