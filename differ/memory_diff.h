// The memory diff (issue 24): peak and average per device with where each side
// peaked and its curve, and the operator and module memory tables with per-step
// noise.
//
// Design:
// 1. Rows are keyed by (operator name, input shapes, device) and (module path,
//    device); run values are per-step means over ranks, as the operator table's
//    (differ/side.h), and noise compares the per-step samples of allocation
//    bytes and of self increase.
// 2. A row's change is about allocation bytes; where neither side allocated
//    (legacy self_cpu_memory_usage, or frees only), about the self increase.
// 3. Device peaks and averages are means over the ranks that have the device,
//    as the overview's; the curve and the peak's place are the lowest such
//    rank's (one curve a side keeps the report small at any rank count).
// 4. Rows are ordered by |delta allocation bytes|, then |delta self increase|.
#ifndef PROFDIFF_DIFFER_MEMORY_DIFF_H_
#define PROFDIFF_DIFFER_MEMORY_DIFF_H_

#include "differ/noise.h"
#include "differ/side.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {

v1::MemoryDiff DiffMemory(const Side& a, const Side& b,
                          const ChangeThreshold& threshold);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_MEMORY_DIFF_H_
