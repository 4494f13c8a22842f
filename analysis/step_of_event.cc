#include "analysis/step_of_event.h"

#include <algorithm>

namespace profdiff::analysis {
namespace {

// The last kept step starting at or before `ns` whose [begin(s), end(s)) holds
// it.
template <typename Begin, typename End>
int32_t StepHolding(const std::vector<StepWindow>& kept, int64_t ns,
                    Begin begin, End end) {
  auto it = std::upper_bound(
      kept.begin(), kept.end(), ns,
      [&](int64_t t, const StepWindow& w) { return t < begin(w); });
  if (it == kept.begin()) return kNoStep;
  --it;
  return ns < end(*it) ? static_cast<int32_t>(it - kept.begin()) : kNoStep;
}

// docs/semantics.md §1: a gpu_user_annotation repeats a host annotation on the
// device timeline, so it is a device event like the activities.
bool OnDevice(trace::EventKind kind) {
  return trace::IsDeviceActivity(kind) ||
         kind == trace::EventKind::kGpuUserAnnotation;
}

}  // namespace

int32_t HostStepAt(const StepWindows& steps, int64_t time_ns) {
  return StepHolding(
      steps.kept, time_ns, [](const StepWindow& w) { return w.host_start_ns; },
      [](const StepWindow& w) { return w.host_end_ns; });
}

std::vector<int32_t> AssignEventsToSteps(const trace::Trace& trace,
                                         const EventLinks& links,
                                         const StepWindows& steps) {
  const trace::EventTable& t = trace.events;
  std::vector<int32_t> step_of(t.size(), kNoStep);
  const auto begin = [](const StepWindow& w) { return w.start_ns; };
  const auto end = [](const StepWindow& w) { return w.end_ns; };
  for (size_t i = 0; i < t.size(); ++i) {
    const trace::EventPhase phase = t.phase[i];
    if (phase != trace::EventPhase::kComplete &&
        phase != trace::EventPhase::kInstant)
      continue;
    // Design 1 (host step spans) and 2 (device windows): issue 44.
    step_of[i] = OnDevice(t.kind[i])
                     ? StepHolding(steps.kept, t.start_ns[i], begin, end)
                     : HostStepAt(steps, t.start_ns[i]);
  }
  for (uint32_t d : links.device_activities) {
    const uint32_t runtime = links.device_runtime[d];
    if (runtime != kNoEvent) step_of[d] = step_of[runtime];
  }
  return step_of;
}

}  // namespace profdiff::analysis
