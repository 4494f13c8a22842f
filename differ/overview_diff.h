// The overview diff (the table users read first) and the per-rank step view.
#ifndef PROFDIFF_DIFFER_OVERVIEW_DIFF_H_
#define PROFDIFF_DIFFER_OVERVIEW_DIFF_H_

#include <vector>

#include "differ/noise.h"
#include "differ/side.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {

// Per side: device, memory, GPU metrics, average step time and each breakdown category
// (always per-step means; step samples give the noise).
v1::Overview DiffOverview(const Side& a, const Side& b, const ChangeThreshold& threshold);

// Each rank's mean step of both sides; the slowest rank of a side with several is the straggler.
std::vector<v1::RankSteps> RankStepsOf(const Side& a, const Side& b);

// What the report says about one side.
v1::RunSummary SummarizeSide(const Side& side);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_OVERVIEW_DIFF_H_
