// Rule: what changed inside. The operators (by self time) and the kernels (by
// device time) that changed most inside the module the walk stopped at, with
// its backward, or across the step when the walk stayed at the root: only
// rows in the change's direction, at most kNamesShown of each, and none far
// smaller than the largest. Kernels a replacement finding paired are not
// listed again.
#ifndef PROFDIFF_DIFFER_FINDINGS_WHAT_CHANGED_INSIDE_H_
#define PROFDIFF_DIFFER_FINDINGS_WHAT_CHANGED_INSIDE_H_

#include <vector>

#include <absl/status/statusor.h>

#include "differ/findings/finding_context.h"
#include "differ/findings/replacements.h"
#include "differ/module_walk.h"

namespace profdiff::differ {

// An operator or kernel is listed after the largest only when its change is
// at least this share of the largest's.
inline constexpr double kMinItemShare = 0.10;

// The operator finding, then the kernel finding (either may be missing).
// Reads the walk's scopes through FindingInputs::inside (nothing without it),
// the whole step's tables when the walk did not descend. Errors: `inside`'s.
absl::StatusOr<std::vector<v1::Finding>> WhatChangedInsideFindings(
    const FindingContext& context, const ModuleWalk& walk,
    const PairedKernels& paired);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_WHAT_CHANGED_INSIDE_H_
