#include "analysis/step_breakdown.h"

#include <algorithm>

#include "analysis/interval_set.h"
#include "analysis/name_test_memo.h"

namespace profdiff::analysis {
namespace {

using trace::EventKind;

bool IsDataLoaderName(std::string_view name) {
  return name.starts_with("enumerate(DataLoader)#") ||
         name.starts_with("enumerate(DataPipe)#");
}

}  // namespace

bool ContainsNccl(std::string_view name) {
  for (size_t i = 0; i + 4 <= name.size(); ++i) {
    if ((name[i] | 0x20) == 'n' && (name[i + 1] | 0x20) == 'c' &&
        (name[i + 2] | 0x20) == 'c' && (name[i + 3] | 0x20) == 'l') {
      return true;
    }
  }
  return false;
}

// docs/semantics.md §3's collectives. This is the one place profdiff
// deliberately differs from the plugin, which counts a kernel as Communication
// only when its launching op is named exactly nccl:/gloo: broadcast, reduce,
// all_reduce, all_gather or reduce_scatter (its 2021 set). Since PyTorch 1.13,
// NCCL kernels are launched from record_param_comms and c10d:: ops, so the
// plugin calls them Kernel; profdiff counts them as communication, as users and
// HTA do.
bool IsCollectiveOpName(std::string_view name) {
  static constexpr std::string_view kDispatcherCollectives[] = {
      "allreduce_",
      "allreduce_coalesced_",
      "broadcast_",
      "allgather_",
      "allgather_coalesced_",
      "allgather_into_tensor_coalesced_",
      "_allgather_base_",
      "reduce_",
      "reduce_scatter_",
      "_reduce_scatter_base_",
      "reduce_scatter_tensor_coalesced_",
      "alltoall_",
      "alltoall_base_",
      "gather_",
      "scatter_",
      "send",
      "recv_",
      "recv_any_source_",
      "barrier",
      "monitored_barrier_"};
  if (name.starts_with("nccl:") || name.starts_with("gloo:") ||
      name == "record_param_comms")
    return true;
  constexpr std::string_view kDispatcher = "c10d::";
  if (!name.starts_with(kDispatcher)) return false;
  name.remove_prefix(kDispatcher.size());
  return std::find(std::begin(kDispatcherCollectives),
                   std::end(kDispatcherCollectives),
                   name) != std::end(kDispatcherCollectives);
}

std::vector<StepBreakdown> ComputeStepBreakdowns(const trace::Trace& trace,
                                                 const EventLinks& links,
                                                 const StepWindows& steps) {
  const trace::EventTable& t = trace.events;
  // Role of each event's interval (docs/semantics.md §3); the whole trace at
  // once, clipped per step.
  std::array<std::vector<Interval>, kStepRoleCount> by_role;
  NameTestMemo collective_op(trace.strings, IsCollectiveOpName);
  NameTestMemo nccl(trace.strings, ContainsNccl);
  NameTestMemo data_loader(trace.strings, IsDataLoaderName);
  for (uint32_t i = 0; i < t.size(); ++i) {
    if (t.phase[i] != trace::EventPhase::kComplete) continue;
    const Interval interval{t.start_ns[i], t.end_ns(i)};
    StepRole role;
    switch (t.kind[i]) {
      case EventKind::kKernel: {
        const uint32_t op = links.DeviceOp(i);
        const bool collective =
            (op != kNoEvent && collective_op(t.name[op])) || nccl(t.name[i]);
        role = collective ? StepRole::kCommunication : StepRole::kKernel;
        break;
      }
      case EventKind::kMemcpy:
        role = StepRole::kMemcpy;
        break;
      case EventKind::kMemset:
        role = StepRole::kMemset;
        break;
      case EventKind::kRuntime:
      case EventKind::kDriver:
        role = StepRole::kRuntime;
        break;
      case EventKind::kCpuOp:
      case EventKind::kUserAnnotation:
        role = data_loader(t.name[i])     ? StepRole::kDataLoader
               : collective_op(t.name[i]) ? StepRole::kCommunication
                                          : StepRole::kCpuExec;
        break;
      default:
        continue;  // steps, python functions, device-side annotations, spans:
                   // no role
    }
    by_role[static_cast<int>(role)].push_back(interval);
  }
  std::array<std::vector<Interval>, kStepRoleCount> merged;
  for (int r = 0; r < kStepRoleCount; ++r)
    merged[r] = MergeIntervals(std::move(by_role[r]));

  std::vector<StepBreakdown> result;
  result.reserve(steps.kept.size());
  for (const StepWindow& step : steps.kept) {
    StepBreakdown breakdown;
    std::vector<Interval> taken;
    int64_t assigned = 0;
    for (int r = 0; r < static_cast<int>(StepRole::kOther); ++r) {
      const std::vector<Interval> mine =
          Clip(merged[r], step.start_ns, step.end_ns);
      const int64_t overlap = TotalLength(Intersection(mine, taken));
      breakdown.role_ns[r] = TotalLength(mine) - overlap;
      assigned += breakdown.role_ns[r];
      taken = Union(taken, mine);
    }
    breakdown.role_ns[static_cast<int>(StepRole::kOther)] =
        (step.end_ns - step.start_ns) - assigned;
    result.push_back(breakdown);
  }
  return result;
}

}  // namespace profdiff::analysis
