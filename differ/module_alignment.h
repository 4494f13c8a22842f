// Optimal order-preserving alignment of two lists of sibling nodes
// (docs/semantics.md §7). The TensorBoard plugin matched greedily (first equal
// key after the last match), so one reordered block could leave everything
// after it unmatched; this finds the alignment with the most matches (a longest
// common subsequence on the keys) and, among those, the one whose matched nodes
// cover the most time.
#ifndef PROFDIFF_DIFFER_MODULE_ALIGNMENT_H_
#define PROFDIFF_DIFFER_MODULE_ALIGNMENT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace profdiff::differ {

struct AlignItem {
  std::string key;    // node kind + class name: nodes match only on equal keys
  double weight = 0;  // time the node covers
};

// One step of the alignment: a match (both set), a removal (b < 0) or an
// addition (a < 0).
struct AlignedPair {
  int32_t a = -1;
  int32_t b = -1;
};

// Pairs in order; every index of `a` and `b` appears exactly once. Lists whose
// unmatched middle is larger than `max_cells` (rows x columns) fall back to
// greedy matching there.
std::vector<AlignedPair> AlignChildren(const std::vector<AlignItem>& a,
                                       const std::vector<AlignItem>& b,
                                       size_t max_cells = size_t{16} << 20);

// "Linear_3" -> "Linear": the class name without the instance suffix the
// profiler adds.
std::string_view ClassName(std::string_view node_name);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_MODULE_ALIGNMENT_H_
