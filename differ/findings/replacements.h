// Rule: kernels replaced. Kernels that ran on one side only under the same
// launching operator (inside the same top-level module) are one replacement,
// said with both sides' device time: an fp32 SGEMM by a bf16 GEMM under
// aten::mm, cuDNN by MIOpen under a convolution, one softmax kernel by
// another under aten::_softmax, whatever the vendor or precision. The dtype
// conversions the experimental run added (autocast's aten::_to_copy) are
// named with their cost.
#ifndef PROFDIFF_DIFFER_FINDINGS_REPLACEMENTS_H_
#define PROFDIFF_DIFFER_FINDINGS_REPLACEMENTS_H_

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include <absl/status/statusor.h>

#include "differ/findings/finding_context.h"

namespace profdiff::differ {

// Operators named in the finding, largest replacement first.
inline constexpr int kReplacementsShown = 3;

// The precision a kernel's name says it computes in ("fp32", "bf16", "fp16",
// "tf32"), or "" when the name does not say.
std::string_view KernelPrecision(std::string_view kernel);

// The kernels a replacement finding names: (kernel, launching operator).
using PairedKernels = std::set<std::pair<std::string, std::string>>;

// The finding, with the kernels it pairs in `paired` (so no other finding
// lists them again), or nullopt when nothing was replaced. Reads the kernel
// tables of the top-level modules (through FindingInputs::inside), else the
// whole step's when they are grouped by operator. Errors: `inside`'s.
absl::StatusOr<std::optional<v1::Finding>> ReplacementFinding(
    const FindingContext& context, PairedKernels& paired);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_REPLACEMENTS_H_
