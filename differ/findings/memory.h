// Rule: peak memory. A peak that moved by kMemoryShare of the baseline's is a
// finding even when the step time did not change: where the peak is (the
// operator, module and step on the side with the higher peak) and the
// operator whose allocations changed most say what to look at.
#ifndef PROFDIFF_DIFFER_FINDINGS_MEMORY_H_
#define PROFDIFF_DIFFER_FINDINGS_MEMORY_H_

#include <optional>

#include "differ/findings/finding_context.h"

namespace profdiff::differ {

// The finding (its delta in bytes, no share of the step's change), or nullopt
// when a side has no peak or it moved less.
std::optional<v1::Finding> MemoryFinding(const FindingContext& context);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_MEMORY_H_
