// Rule: a kernel that carries a material share of the step's change gets a
// finding of its own when no other finding names it: matched GEMMs that got
// longer at a larger batch are the change, wherever the module walk went.
#ifndef PROFDIFF_DIFFER_FINDINGS_MATERIAL_KERNELS_H_
#define PROFDIFF_DIFFER_FINDINGS_MATERIAL_KERNELS_H_

#include <vector>

#include "differ/findings/finding_context.h"
#include "differ/findings/replacements.h"

namespace profdiff::differ {

// A kernel is material past this share of the step time's change.
inline constexpr double kMaterialKernelShare = 0.25;
inline constexpr int kMaterialKernelsShown = 2;

// The findings for the whole step's kernel rows that changed significantly,
// in the step's direction, by kMaterialKernelShare of its change, and that
// neither `paired` nor the evidence of `named` and `named_too` holds.
std::vector<v1::Finding> MaterialKernelFindings(
    const FindingContext& context, const PairedKernels& paired,
    const std::vector<v1::Finding>& named,
    const std::vector<v1::Finding>& named_too);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_MATERIAL_KERNELS_H_
