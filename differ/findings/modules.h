// Rule: where in the module tree the change is. A tree that stops aligning
// says only what is above the point can be compared; then the module the walk
// (differ/module_walk.h) stopped at, with its backward, said as a structural
// change when sub-modules were added or removed there (or it ran on one side
// only), else with the sub-modules the change spreads over; or, when no one
// module holds most of the change, the largest parts it spreads over. An
// (unknown) block is said by what it holds (findings/unknown_time.h).
#ifndef PROFDIFF_DIFFER_FINDINGS_MODULES_H_
#define PROFDIFF_DIFFER_FINDINGS_MODULES_H_

#include <optional>
#include <vector>

#include "differ/findings/finding_context.h"
#include "differ/module_walk.h"

namespace profdiff::differ {

// One structure finding per node below which the trees stop aligning (a
// backward node that does not align either is said with its forward module).
// FindingInputs::modules must be set.
std::vector<v1::Finding> ComparabilityFindings(const FindingContext& context);

// Where `walk` (of FindingInputs::modules, which must be set) says the change
// is: a FINDING_KIND_STRUCTURE or FINDING_KIND_MODULE finding, or nullopt when
// the walk stayed at the root and nothing spreads below it.
std::optional<v1::Finding> WhereFinding(const FindingContext& context,
                                        const ModuleWalk& walk);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_MODULES_H_
