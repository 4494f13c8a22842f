// Rule: the step breakdown. The categories (kernel, memcpy, CPU Exec, ...)
// whose change is at least kCategoryShare of the step time's change (of the
// largest category's, when the step did not change), each with its share,
// in one finding; communication is a finding of its own after it, since it
// is what DDP comparisons are mostly about. On a GPU run the categories are
// named as the wall time by who is busy, not as work done.
#ifndef PROFDIFF_DIFFER_FINDINGS_CATEGORIES_H_
#define PROFDIFF_DIFFER_FINDINGS_CATEGORIES_H_

#include <vector>

#include "differ/findings/finding_context.h"

namespace profdiff::differ {

// The category finding first, then the communication category's; none
// without an overview or a category that passed.
std::vector<v1::Finding> CategoryFindings(const FindingContext& context);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_CATEGORIES_H_
