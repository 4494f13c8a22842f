// Rule: the rank the others wait for, and the slowest compute. A rank that
// arrives last at the collectives on one side only (or a different rank on
// each side) is the straggler: the others' wait is said with it. The same
// rank on both sides is named only when the others' wait for it changed.
// Apart from that, the rank with the most compute on one side only is "the
// slowest compute" (the word straggler is kept for the rank the others wait
// for), unless a straggler was already named on that side.
#ifndef PROFDIFF_DIFFER_FINDINGS_STRAGGLERS_H_
#define PROFDIFF_DIFFER_FINDINGS_STRAGGLERS_H_

#include <cstddef>
#include <vector>

#include "differ/findings/finding_context.h"

namespace profdiff::differ {

// With two ranks "the others' median" is one rank, and a shared machine makes
// one of two ranks 5% slower by chance: the slowest compute is named from three
// ranks.
inline constexpr size_t kMinRanksForSlowestCompute = 3;

// The straggler findings from the communication diff; `named[side]` (0:
// baseline, 1: experimental) is set for each side a straggler was named on.
// The same rank on both sides is named when every other rank's wait changed
// significantly, and their mean by --min-change (a straggler that got worse,
// or a machine that made one of its own in the baseline too).
std::vector<v1::Finding> LastArrivalFindings(const FindingContext& context,
                                             bool named[2]);

// The slowest compute that one side marks (FindingInputs::ranks) and the
// other does not at that rank, for each side not in `last_arrival_named`.
std::vector<v1::Finding> SlowestComputeFindings(
    const FindingContext& context, const bool last_arrival_named[2]);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_STRAGGLERS_H_
