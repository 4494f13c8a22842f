// What several finding rules share when they list names in a sentence: how
// many names a list shows, and when a call count's move counts as a change of
// what ran (a count is said as base::CountText says it).
#ifndef PROFDIFF_DIFFER_FINDINGS_NAME_LISTS_H_
#define PROFDIFF_DIFFER_FINDINGS_NAME_LISTS_H_

namespace profdiff::differ {

// Names per list in a sentence; the evidence and the tables hold the rest.
inline constexpr int kNamesShown = 3;
// Call counts that moved by less than this per step are not a change of what
// ran.
inline constexpr double kMinCallsDelta = 0.5;

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_NAME_LISTS_H_
