// What an (unknown) block holds: "(unknown)" is never a finding by itself.
// The block is a module's time in none of its sub-modules (the step's, at the
// top level); it is said by the operators that ran there, the largest changes
// first: the input's copy to the device, a loss computed outside the model.
#ifndef PROFDIFF_DIFFER_FINDINGS_UNKNOWN_TIME_H_
#define PROFDIFF_DIFFER_FINDINGS_UNKNOWN_TIME_H_

#include <string>

#include "differ/findings/finding_context.h"

namespace profdiff::differ {

inline constexpr int kUnknownOperatorsShown = 3;

// "aten::copy_ +1.2 ms and aten::to +0.4 ms of self device time": the
// operators of `unknown`'s parent (found in `root`) that ran in none of the
// parent's sub-modules, their self-time changes in the block's direction;
// "" when the tables cannot say (no FindingInputs::inside, or none moved).
std::string WhatUnknownHolds(const FindingContext& context,
                             const v1::ModuleDiffNode& root,
                             const v1::ModuleDiffNode& unknown);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_UNKNOWN_TIME_H_
