// Rule: what bounds the step. When the share of the step the device is busy
// moved materially, the run changed what paces it: it became host-bound (the
// GPU now idles most of the step), device-bound, or input-bound (the
// DataLoader took a material share of the step). Said first after the step
// time: a performance engineer's first question about a step that changed.
#ifndef PROFDIFF_DIFFER_FINDINGS_BOTTLENECK_H_
#define PROFDIFF_DIFFER_FINDINGS_BOTTLENECK_H_

#include <vector>

#include "differ/findings/finding_context.h"

namespace profdiff::differ {

// GPU utilization must move by this many points (of 100) to be a shift.
inline constexpr double kBottleneckShiftPoints = 20;
// Under this GPU utilization a step is host-bound: the host paces it.
inline constexpr double kHostBoundBelow = 0.5;
// The DataLoader's share of the step must move by this many points, and
// reach this share, to make a run input-bound.
inline constexpr double kInputShiftPoints = 10;
inline constexpr double kInputBoundShare = 0.10;

// The bottleneck findings (none for a run without device work on both sides,
// none without a significant change of the kernel time or the step time
// behind the shift: the per-step samples judge, as for every claim).
std::vector<v1::Finding> BottleneckFindings(const FindingContext& context);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_BOTTLENECK_H_
