// What a diff of a run that is not COMPLETE should tell the user: which ranks it lacks.
#ifndef PROFDIFF_DIFFER_RUN_COMPLETENESS_H_
#define PROFDIFF_DIFFER_RUN_COMPLETENESS_H_

#include <optional>
#include <string>

#include "profdiff/v1/run_store.pb.h"

namespace profdiff::differ {

// None for a COMPLETE run. Otherwise e.g. "run r1 is PARTIAL: 2 of 4 ranks stored, missing
// ranks 1, 3; the diff covers the stored ranks only". `run` must come from GetRun (with workers).
std::optional<std::string> IncompleteRunWarning(const v1::StoredRun& run);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_RUN_COMPLETENESS_H_
