// Rule: the collective that changed. Of the collectives (every message size
// pooled), the one whose calls, bytes, time or wait changed significantly,
// the largest time change first: its calls, bytes per call, time split into
// transfer and wait, and bus bandwidth. More, smaller all-reduces is a DDP
// bucket change a reader can act on.
#ifndef PROFDIFF_DIFFER_FINDINGS_COMMUNICATION_H_
#define PROFDIFF_DIFFER_FINDINGS_COMMUNICATION_H_

#include <optional>

#include "differ/findings/finding_context.h"

namespace profdiff::differ {

// The finding, or nullopt without a communication diff or a collective that
// moved.
std::optional<v1::Finding> CollectiveFinding(const FindingContext& context);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_COMMUNICATION_H_
