// What a diff of a stored run should tell the user about it: which ranks it
// lacks when it is not COMPLETE, and what the store found wrong with it (a rank
// stored twice, damaged spans).
#ifndef PROFDIFF_DIFFER_RUN_COMPLETENESS_H_
#define PROFDIFF_DIFFER_RUN_COMPLETENESS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profdiff/v1/run_store.pb.h"

namespace profdiff::differ {

// "OPEN", "PARTIAL" or "COMPLETE"; "UNKNOWN" for an unset state or a number
// this build does not know. The one name of a run's state: warnings, the web
// UI and `profdiff runs` (in lower case) print it.
std::string_view RunStateName(v1::RunState state);

// None for a COMPLETE run. Otherwise e.g. "run r1 is PARTIAL: 2 of 4 ranks
// stored, missing ranks 1, 3; the diff covers the stored ranks only". Missing
// ranks are listed as ranges ("0-99, 101"), at most kMaxMissingRankRanges of
// them, then "and N more ranks". `run` must come from GetRun (its
// closed_ranks).
std::optional<std::string> IncompleteRunWarning(const v1::StoredRun& run);

inline constexpr int kMaxMissingRankRanges = 16;

// IncompleteRunWarning, then each of the run's own warnings as "run R:
// <warning>".
std::vector<std::string> RunWarnings(const v1::StoredRun& run);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_RUN_COMPLETENESS_H_
