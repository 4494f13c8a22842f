// Step-time breakdown as the TensorBoard plugin defines it (docs/semantics.md
// §3): each step's wall time split between Kernel, Memcpy, Memset,
// Communication, Runtime, DataLoader, CPU Exec and Other, higher roles taking
// overlapping time first, so the roles sum to the step.
#ifndef PROFDIFF_ANALYSIS_STEP_BREAKDOWN_H_
#define PROFDIFF_ANALYSIS_STEP_BREAKDOWN_H_

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/event_links.h"
#include "analysis/steps.h"
#include "trace/trace.h"

namespace profdiff::analysis {

// In priority order.
enum class StepRole : uint8_t {
  kKernel,
  kMemcpy,
  kMemset,
  kCommunication,
  kRuntime,
  kDataLoader,
  kCpuExec,
  kOther,
};
inline constexpr int kStepRoleCount = 8;

struct StepBreakdown {
  std::array<int64_t, kStepRoleCount> role_ns{};  // sums to the step's duration
};

// True for host operators that are collectives (docs/semantics.md §3): nccl:*,
// gloo:*, record_param_comms and the c10d:: collectives (c10d::allreduce_,
// c10d::broadcast_, ...).
bool IsCollectiveOpName(std::string_view name);

// True for kernel names containing "nccl" in any case (NCCL's kernels).
bool ContainsNccl(std::string_view name);

// One breakdown per kept step.
std::vector<StepBreakdown> ComputeStepBreakdowns(const trace::Trace& trace,
                                                 const EventLinks& links,
                                                 const StepWindows& steps);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_STEP_BREAKDOWN_H_
