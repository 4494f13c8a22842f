// What a run digest (protos/profdiff/v1/digest.proto) must hold for the
// differ to read it: RunDigestBuilder (analysis/run_digest.h) makes only such
// digests, but one that comes from a store (kept on disk, in ClickHouse, or
// from another aggregator) is checked before use, so a damaged one is an error
// naming the run and what is wrong, never a crash or a silent wrong diff.
#ifndef PROFDIFF_ANALYSIS_RUN_DIGEST_CHECK_H_
#define PROFDIFF_ANALYSIS_RUN_DIGEST_CHECK_H_

#include <absl/status/status.h>

#include "profdiff/v1/digest.pb.h"

namespace profdiff::analysis {

// OK when `digest` has the shape RunDigestBuilder gives it: at least one rank,
// ranks strictly ascending, one rank row per rank (same rank, steps >= 0),
// slots = Σ max(steps, 1) over the rank rows, every step metric of the
// overview (kStepMetrics), every metric of each operator, kernel, memory,
// module and collective row (their k*Metrics; a module node's `unknown` empty
// or whole), and no sample count below 0. Otherwise InvalidArgument naming the
// run, the field (with its row's name and index) and what was expected and
// found; a rank given twice names the rank and both workers.
absl::Status ValidateRunDigest(const v1::RunDigest& digest);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_RUN_DIGEST_CHECK_H_
