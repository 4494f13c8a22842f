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

}  // namespace

std::vector<int32_t> AssignEventsToSteps(const trace::Trace& trace,
                                         const EventLinks& links,
                                         const StepWindows& steps) {
  const trace::EventTable& t = trace.events;
  std::vector<int32_t> step_of(t.size(), kNoStep);
  const auto host_begin = [](const StepWindow& w) { return w.host_start_ns; };
  const auto host_end = [](const StepWindow& w) { return w.host_end_ns; };
  const auto begin = [](const StepWindow& w) { return w.start_ns; };
  const auto end = [](const StepWindow& w) { return w.end_ns; };
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.phase[i] != trace::EventPhase::kComplete ||
        trace::IsDeviceActivity(t.kind[i]))
      continue;
    step_of[i] = StepHolding(steps.kept, t.start_ns[i], host_begin, host_end);
  }
  for (uint32_t d : links.device_activities) {
    const uint32_t runtime = links.device_runtime[d];
    step_of[d] = runtime != kNoEvent
                     ? step_of[runtime]
                     : StepHolding(steps.kept, t.start_ns[d], begin, end);
  }
  return step_of;
}

}  // namespace profdiff::analysis
