// "What changed": a diff's ranked findings (DiffReport.findings), each a
// sentence built from rows of the same report, most important first. The
// rules are written down in README.md ("What changed"); each family is a unit
// of its own under findings/, and findings.cc assembles them. In short:
//   1. the headline: the step time's change and whether it is significant, or
//      "no significant change" with the noise when nothing passed
//      (findings/step_time.h); then what bounds the step, when that changed
//      (findings/bottleneck.h), and a change of every operator by one factor
//      (findings/uniform_change.h), for which no module is blamed;
//   2. structure: a module tree that stops aligning, the module the change is
//      in when sub-modules were added or removed there (findings/modules.h),
//      operators that ran on one side only, and call counts that changed
//      while no module did (findings/operators_that_ran.h), and kernels
//      replaced under the same operator (findings/replacements.h);
//   3. where: the module the change is in (module_walk.h, findings/modules.h),
//      an (unknown) block said by what it holds (findings/unknown_time.h);
//   4. what: the operators and kernels that changed most inside it
//      (findings/what_changed_inside.h), and a kernel that carries a material
//      share of the step's change wherever it ran
//      (findings/material_kernels.h);
//   5. step-breakdown categories that explain >= 10% of the change
//      (findings/categories.h);
//   6. the collective whose calls, message size or wait changed most
//      (findings/communication.h), and the rank that arrives last at the
//      collectives (findings/stragglers.h);
//   7. peak memory, with where each side peaks and the operator whose
//      allocations changed most (findings/memory.h), and the slowest compute
//      among the ranks (findings/stragglers.h).
// At most kMaxFindings, the headline first. Deterministic: the same rows give
// the same sentences.
#ifndef PROFDIFF_DIFFER_FINDINGS_H_
#define PROFDIFF_DIFFER_FINDINGS_H_

#include <functional>
#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include "differ/noise.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {

inline constexpr int kMaxFindings = 8;
// A category is named when its change is at least this share of the step's.
inline constexpr double kCategoryShare = 0.10;
// Peak memory is named when it moved by at least this share of the baseline.
inline constexpr double kMemoryShare = 0.10;

// The operator and kernel rows of what ran inside one module node.
struct ScopedTables {
  std::vector<v1::OperatorDiff> operators;
  std::vector<v1::KernelDiff> kernels;
};

struct FindingInputs {
  const v1::Overview* overview = nullptr;
  const v1::ModuleDiffNode* modules = nullptr;  // the whole tree's root
  const std::vector<v1::OperatorDiff>* operators = nullptr;  // the whole step
  const std::vector<v1::KernelDiff>* kernels = nullptr;
  const std::vector<v1::RankSteps>* ranks = nullptr;
  const v1::CommunicationDiff* communication = nullptr;
  const v1::MemoryDiff* memory =
      nullptr;  // where the peak is, and who allocates
  ChangeThreshold threshold;
  bool per_step = true;  // false: values are totals over the window
  // The tables of the node at an index path ("0/3/1").
  std::function<absl::StatusOr<ScopedTables>(const std::string& index_path)>
      inside;
};

absl::StatusOr<std::vector<v1::Finding>> FindFindings(const FindingInputs& in);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_H_
