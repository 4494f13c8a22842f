// What keeps workers from being one run, in the words every path uses: the
// offline loader refusing a folder (analysis/run_loader.h) and the digest of a
// stored run (analysis/run_digest.h) refusing a rank held by two workers, so
// `profdiff diff` of a folder and the Differ service of the same traces
// uploaded give one answer.
#ifndef PROFDIFF_ANALYSIS_ONE_RUN_H_
#define PROFDIFF_ANALYSIS_ONE_RUN_H_

#include <string>
#include <string_view>
#include <vector>

#include "profdiff/v1/trace.pb.h"

namespace profdiff::analysis {

// The start of every such refusal: "<what>: these traces are not one run
// (<problem>); <what to do>".
inline constexpr std::string_view kNotOneRun = "these traces are not one run";

// "w0 (rank 0 of 2), w1 (rank 1 of 2)": `workers` in the order given.
std::string DescribeWorkers(const std::vector<const v1::WorkerInfo*>& workers);

// "rank 0 2 times: a (rank 0 of 2), b (rank 0 of 2)" for each rank held by
// more than one of `workers` (ranks ascending, a rank's workers by name),
// joined by "; "; "" when every rank has one worker.
std::string RanksGivenTwice(const std::vector<const v1::WorkerInfo*>& workers);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_ONE_RUN_H_
