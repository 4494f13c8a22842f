// Half-open time intervals [start_ns, end_ns) and the set operations the
// breakdown and GPU metrics need, on sorted, non-overlapping ("merged") lists.
#ifndef PROFDIFF_ANALYSIS_INTERVAL_SET_H_
#define PROFDIFF_ANALYSIS_INTERVAL_SET_H_

#include <cstdint>
#include <vector>

namespace profdiff::analysis {

struct Interval {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t length_ns() const { return end_ns - start_ns; }
};

// Sorts `intervals` and merges overlapping or touching ones, dropping empty
// ones.
std::vector<Interval> MergeIntervals(std::vector<Interval> intervals);

// Σ length of a merged list.
int64_t TotalLength(const std::vector<Interval>& merged);

// The parts of merged list `a` inside [lo, hi).
std::vector<Interval> Clip(const std::vector<Interval>& merged, int64_t lo,
                           int64_t hi);

// Union and intersection of two merged lists (results are merged).
std::vector<Interval> Union(const std::vector<Interval>& a,
                            const std::vector<Interval>& b);
std::vector<Interval> Intersection(const std::vector<Interval>& a,
                                   const std::vector<Interval>& b);
// The parts of merged list `a` outside every interval of merged list `b`
// (merged).
std::vector<Interval> Difference(const std::vector<Interval>& a,
                                 const std::vector<Interval>& b);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_INTERVAL_SET_H_
