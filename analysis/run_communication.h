// A run's collectives matched across its ranks (README.md, "Communication
// across ranks"): the k-th call of a collective in a process group in a step is
// one instance on every rank of the group. Only durations are compared, never
// timestamps of different ranks (their clocks differ).
//
// Per instance, as the TensorBoard plugin's distributed view: transfer time =
// its shortest duration over the ranks that ran it (the rank that arrived last
// did not wait); a rank's wait = its duration - transfer. The rank with the
// shortest duration is the last to arrive (none when that duration is shared).
#ifndef PROFDIFF_ANALYSIS_RUN_COMMUNICATION_H_
#define PROFDIFF_ANALYSIS_RUN_COMMUNICATION_H_

#include <cstdint>
#include <vector>

#include "profdiff/v1/profile.pb.h"

namespace profdiff::analysis {

// Matches the collective calls of `workers` (all the run's ranks) and reduces
// them, for the workers whose rank is in `ranks` (all when empty), into
// groups (collective x process group x message size) with per-rank, per-step
// slots, and per-rank step times. The straggler verdict is over every rank.
v1::RunCommunication RunCommunicationOf(
    const std::vector<const v1::WorkerProfile*>& workers,
    const std::vector<int32_t>& ranks);

// The straggler rule: the rank last most often is a straggler when it was last
// in at least half of `instances` (>= 4) and in at least 3 standard deviations
// more of them than chance (1 / `rank_count` each) would give: two ranks of
// a balanced run take turns, and one of them is last in 14 of 16 by chance
// less than once in 200 runs.
bool IsStraggler(int32_t last_arrivals, int32_t instances, int32_t rank_count);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_RUN_COMMUNICATION_H_
