// Rule: the same code on another machine. When nearly every operator's time
// changed by a similar factor, with the same calls, the change is the
// machine's (clocks, a busier host, another GPU), not the code's: said before
// any module or operator is blamed, and instead of them.
#ifndef PROFDIFF_DIFFER_FINDINGS_UNIFORM_CHANGE_H_
#define PROFDIFF_DIFFER_FINDINGS_UNIFORM_CHANGE_H_

#include <optional>

#include "differ/findings/finding_context.h"

namespace profdiff::differ {

// The operators judged: those holding this share of the baseline's time,
// largest first; at least kUniformMinOperators of them.
inline constexpr double kUniformCoveredShare = 0.90;
inline constexpr int kUniformMinOperators = 5;
// "Similar": within this factor of the (time-weighted) median factor, for
// operators holding this share of the judged time.
inline constexpr double kUniformSpread = 1.15;
inline constexpr double kUniformAgreeingShare = 0.80;
// "The same code": operators on one side only hold less than this share of
// either side's time, and no operator that ran on both sides moved its calls
// by this share and at least kUniformCallsMoved per step (a machine does not
// change how often code calls an operator; autocast doubling aten::linear's
// calls, with every matmul 27x faster, is a code change).
inline constexpr double kUniformOneSidedShare = 0.05;
inline constexpr double kUniformCallsShare = 0.10;
inline constexpr double kUniformCallsMoved = 1.0;

// The finding, when the whole-step operator rows show a uniform change past
// the thresholds; nullopt otherwise.
std::optional<v1::Finding> UniformChangeFinding(const FindingContext& context);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_UNIFORM_CHANGE_H_
