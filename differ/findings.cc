#include "differ/findings.h"

#include <iterator>
#include <optional>

#include "base/status_macros.h"
#include "differ/findings/bottleneck.h"
#include "differ/findings/categories.h"
#include "differ/findings/communication.h"
#include "differ/findings/finding_context.h"
#include "differ/findings/material_kernels.h"
#include "differ/findings/memory.h"
#include "differ/findings/modules.h"
#include "differ/findings/operators_that_ran.h"
#include "differ/findings/replacements.h"
#include "differ/findings/step_time.h"
#include "differ/findings/stragglers.h"
#include "differ/findings/uniform_change.h"
#include "differ/findings/what_changed_inside.h"
#include "differ/module_walk.h"

namespace profdiff::differ {

// The rules (differ/findings/*.h) in the order findings.h says: each group
// in order, the headline first, at most kMaxFindings in all.
absl::StatusOr<std::vector<v1::Finding>> FindFindings(const FindingInputs& in) {
  const FindingContext context(in);
  // What bounds the step, and a change of the machine rather than the
  // code, come right after the headline: they say how to read the rest.
  std::vector<v1::Finding> first = BottleneckFindings(context);
  std::optional<v1::Finding> uniform = UniformChangeFinding(context);
  std::vector<v1::Finding> structure, timing, rest;
  ModuleWalk walk;
  if (in.modules != nullptr) {
    structure = ComparabilityFindings(context);
    walk = WalkModules(*in.modules, in.threshold);
    // A uniform change is no module's: none is blamed.
    if (std::optional<v1::Finding> where = WhereFinding(context, walk);
        where.has_value() && !uniform.has_value()) {
      (where->kind() == v1::FINDING_KIND_STRUCTURE ? structure : timing)
          .push_back(std::move(*where));
    }
  }
  if (uniform.has_value()) first.push_back(*std::move(uniform));
  if (std::optional<v1::Finding> ops = OperatorsThatRanFinding(context))
    structure.push_back(std::move(*ops));
  PairedKernels paired;
  PD_ASSIGN_OR_RETURN(std::optional<v1::Finding> replaced,
                      ReplacementFinding(context, paired));
  if (replaced.has_value()) structure.push_back(*std::move(replaced));
  if (first.empty() || first.back().kind() != v1::FINDING_KIND_UNIFORM) {
    PD_ASSIGN_OR_RETURN(std::vector<v1::Finding> inside,
                        WhatChangedInsideFindings(context, walk, paired));
    for (v1::Finding& f : inside) timing.push_back(std::move(f));
  }
  for (v1::Finding& f :
       MaterialKernelFindings(context, paired, structure, timing)) {
    timing.push_back(std::move(f));
  }
  // A rank the others wait for explains their wait: it goes first among
  // the rest, so the cap does not cut it.
  bool last_arrival_named[2] = {false, false};
  std::vector<v1::Finding> arrivals =
      LastArrivalFindings(context, last_arrival_named);
  rest = CategoryFindings(context);
  if (std::optional<v1::Finding> f = CollectiveFinding(context))
    rest.push_back(std::move(*f));
  if (std::optional<v1::Finding> f = MemoryFinding(context))
    rest.push_back(std::move(*f));
  for (v1::Finding& f : SlowestComputeFindings(context, last_arrival_named))
    rest.push_back(std::move(f));
  rest.insert(rest.begin(), std::make_move_iterator(arrivals.begin()),
              std::make_move_iterator(arrivals.end()));

  std::vector<v1::Finding> out;
  const bool anything =
      !first.empty() || !structure.empty() || !timing.empty() || !rest.empty();
  if (std::optional<v1::Finding> headline = StepTimeFinding(context, anything))
    out.push_back(std::move(*headline));
  for (auto* group : {&first, &structure, &timing, &rest}) {
    for (v1::Finding& f : *group) {
      if (static_cast<int>(out.size()) < kMaxFindings)
        out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace profdiff::differ
