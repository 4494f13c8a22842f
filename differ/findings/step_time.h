// Rule: the headline. The step time's change, always first: significant
// (with its 95% interval, or "by the thresholds alone" with one step on a
// side), not significant while other things changed, or "no significant
// change" with why (the interval against the thresholds, the per-step
// spread) when nothing else did either.
#ifndef PROFDIFF_DIFFER_FINDINGS_STEP_TIME_H_
#define PROFDIFF_DIFFER_FINDINGS_STEP_TIME_H_

#include <optional>

#include "differ/findings/finding_context.h"

namespace profdiff::differ {

// The headline, or nullopt when a side has no step time. `anything`: some
// other finding was made, so a step time that did not change is "not
// significant" rather than "no significant change".
std::optional<v1::Finding> StepTimeFinding(const FindingContext& context,
                                           bool anything);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_STEP_TIME_H_
