// Where two module trees stop being comparable: a matched node whose
// sub-modules all differ (two nn.Module implementations of one model, a block
// rewritten). The tree diff shows them as removed and added; this says in words
// what a user may compare there.
#ifndef PROFDIFF_DIFFER_MODULE_COMPARABILITY_H_
#define PROFDIFF_DIFFER_MODULE_COMPARABILITY_H_

#include <string>
#include <vector>

#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {

// One warning per matched node that has removed and added sub-modules and no
// matched one, e.g. "modules: below DistributedDataParallel_0 nothing aligns
// (baseline Mlp_0; experimental FlatMlp_0): only DistributedDataParallel_0 and
// what is above it can be compared". `(unknown)` blocks are not sub-modules.
std::vector<std::string> IncomparableSubtreeWarnings(
    const v1::ModuleDiffNode& root);

// Those nodes, outermost first (a node below one of them is not visited).
std::vector<const v1::ModuleDiffNode*> IncomparableNodes(
    const v1::ModuleDiffNode& root);

// The sub-modules of `node` with `status`, by their name on the side that has
// them (the baseline's for removed ones).
std::vector<std::string> ChildNames(const v1::ModuleDiffNode& node,
                                    v1::DiffStatus status);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_MODULE_COMPARABILITY_H_
