// Rule: what ran changed. Operators that ran on one side only (in at least
// half of the steps, however short: what ran is a fact, not a timing), said
// as a replacement when both sides have some, and call counts that moved
// while the module tree did not (when modules were added or removed, their
// operators' counts follow, and the module finding says why).
#ifndef PROFDIFF_DIFFER_FINDINGS_OPERATORS_THAT_RAN_H_
#define PROFDIFF_DIFFER_FINDINGS_OPERATORS_THAT_RAN_H_

#include <optional>

#include "differ/findings/finding_context.h"

namespace profdiff::differ {

// A call count must also move by this share of the baseline's to count.
inline constexpr double kMinCallsShare = 0.10;

// The structure finding from the whole step's operator rows, or nullopt when
// none ran on one side only and no call count moved.
std::optional<v1::Finding> OperatorsThatRanFinding(
    const FindingContext& context);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_OPERATORS_THAT_RAN_H_
