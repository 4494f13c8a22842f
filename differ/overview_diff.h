// The overview diff (the table users read first) and the per-rank step view.
#ifndef PROFDIFF_DIFFER_OVERVIEW_DIFF_H_
#define PROFDIFF_DIFFER_OVERVIEW_DIFF_H_

#include <vector>

#include "differ/noise.h"
#include "differ/side.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {

// Per side: device, memory, GPU metrics, average step time and each breakdown
// category (always per-step means; step samples give the noise).
v1::Overview DiffOverview(const Side& a, const Side& b,
                          const ChangeThreshold& threshold);

// A rank is marked the slowest compute of its side when its compute is more
// than this share over the others' median.
inline constexpr double kSlowestComputeMargin = 0.05;

// Each rank's mean step of both sides, with its compute (step time minus
// communication). In a side with several ranks the one with the most compute is
// marked (slowest_compute), when it is more than kSlowestComputeMargin over the
// median of the others': step times say nothing, since the others wait for it
// in their collectives. Which rank the others wait for is the communication
// diff's straggler (arrival order), a separate measurement.
std::vector<v1::RankSteps> RankStepsOf(const Side& a, const Side& b);

// What the report says about one side.
v1::RunSummary SummarizeSide(const Side& side);

// The side's mean step time (the scale of the default --min-change-us).
double MeanStepTime(const Side& side);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_OVERVIEW_DIFF_H_
