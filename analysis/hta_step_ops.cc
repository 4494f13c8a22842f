#include "analysis/hta_step_ops.h"

#include <algorithm>
#include <map>
#include <string_view>

#include <absl/container/flat_hash_map.h>

#include "analysis/steps.h"

namespace profdiff::analysis {
namespace {

using trace::EventKind;

struct HtaStepRange {
  int64_t number;
  int64_t start_us;
  int64_t end_us;
};

// Host events HTA counts: a duration and a category, not Python frames or the
// Trace span.
bool IsHtaHostEvent(const trace::EventTable& t, size_t i) {
  if (t.phase[i] != trace::EventPhase::kComplete || t.category[i].value == 0)
    return false;
  switch (t.kind[i]) {
    case EventKind::kPythonFunction:
    case EventKind::kModule:
    case EventKind::kTraceSpan:
    case EventKind::kGpuUserAnnotation:
      return false;
    default:
      return !trace::IsDeviceActivity(t.kind[i]);
  }
}

}  // namespace

int64_t FloorMicros(int64_t ns) {
  return ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000);
}
int64_t CeilMicros(int64_t ns) { return -FloorMicros(-ns); }

std::vector<HtaStepOps> ComputeHtaStepOps(const trace::Trace& trace,
                                          const EventLinks& links) {
  const trace::EventTable& t = trace.events;
  std::vector<HtaStepRange> steps;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != EventKind::kProfilerStep || !IsHtaHostEvent(t, i))
      continue;
    steps.push_back({ProfilerStepNumber(trace.strings.Get(t.name[i])),
                     CeilMicros(t.start_ns[i]), FloorMicros(t.end_ns(i))});
  }
  std::sort(steps.begin(), steps.end(),
            [](const HtaStepRange& a, const HtaStepRange& b) {
              return a.start_us < b.start_us;
            });
  auto step_at = [&steps](int64_t start_us) -> const HtaStepRange* {
    auto it = std::upper_bound(
        steps.begin(), steps.end(), start_us,
        [](int64_t us, const HtaStepRange& s) { return us < s.start_us; });
    if (it == steps.begin()) return nullptr;
    --it;
    return start_us < it->end_us ? &*it : nullptr;
  };

  // step number -> (name, device) -> row
  std::map<int64_t, absl::flat_hash_map<uint64_t, HtaOpRow>> rows;
  auto add = [&rows](int64_t step, size_t i, bool device, int64_t start_us,
                     int64_t end_us, const trace::EventTable& t) {
    HtaOpRow& row =
        rows[step][(uint64_t{t.name[i].value} << 1) | (device ? 1 : 0)];
    row.name = t.name[i];
    row.device = device;
    ++row.count;
    row.total_duration_us += end_us - start_us;
  };
  std::vector<const HtaStepRange*> step_of_runtime(t.size(), nullptr);
  for (size_t i = 0; i < t.size(); ++i) {
    if (!IsHtaHostEvent(t, i)) continue;
    const int64_t start_us = CeilMicros(t.start_ns[i]);
    const HtaStepRange* step = step_at(start_us);
    if (t.kind[i] == EventKind::kRuntime || t.kind[i] == EventKind::kDriver)
      step_of_runtime[i] = step;
    if (step != nullptr)
      add(step->number, i, false, start_us, FloorMicros(t.end_ns(i)), t);
  }
  for (uint32_t d : links.device_activities) {
    const uint32_t runtime = links.device_runtime[d];
    if (runtime == kNoEvent || step_of_runtime[runtime] == nullptr) continue;
    add(step_of_runtime[runtime]->number, d, true, CeilMicros(t.start_ns[d]),
        FloorMicros(t.end_ns(d)), t);
  }

  std::vector<HtaStepOps> result;
  for (const HtaStepRange& range : steps) {
    if (rows.find(range.number) == rows.end())
      rows[range.number];  // a step with no events
  }
  for (auto& [number, by_key] : rows) {
    HtaStepOps& step = result.emplace_back();
    step.step = number;
    for (auto& [key, row] : by_key) step.ops.push_back(row);
    std::sort(step.ops.begin(), step.ops.end(),
              [&trace](const HtaOpRow& a, const HtaOpRow& b) {
                const auto an = trace.strings.Get(a.name),
                           bn = trace.strings.Get(b.name);
                return an != bn ? an < bn : a.device < b.device;
              });
  }
  return result;
}

}  // namespace profdiff::analysis
