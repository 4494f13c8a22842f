#include "analysis/steps.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>

namespace profdiff::analysis {
namespace {

using trace::EventKind;

// docs/semantics.md §2: the last kept step is also dropped when it launched
// fewer than this share of the device activities of the step before it (a
// capture cut short).
constexpr double kIncompleteStepRatio = 0.8;
constexpr std::string_view kStepPrefix = "ProfilerStep#";

// docs/semantics.md §2: host *ops* (cpu_op and python_function, as the plugin's
// cpu_min_ts and cpu_max_ts) bound the implicit step; user annotations, runtime
// calls and device work do not.
bool CountsForImplicitStep(EventKind kind) {
  return kind == EventKind::kCpuOp || kind == EventKind::kPythonFunction ||
         kind == EventKind::kModule;
}

// The steps of the events [begin, end) of one span, appended to `result`.
void FindStepsInSpan(const trace::Trace& trace, const EventLinks& links,
                     uint32_t begin, uint32_t end, int32_t span,
                     StepWindows& result) {
  const trace::EventTable& t = trace.events;
  auto in_span = [begin, end](uint32_t i) { return i >= begin && i < end; };
  std::vector<StepWindow> steps;
  for (uint32_t i = begin; i < end; ++i) {
    if (t.kind[i] != EventKind::kProfilerStep ||
        t.phase[i] != trace::EventPhase::kComplete)
      continue;
    steps.push_back({ProfilerStepNumber(trace.strings.Get(t.name[i])),
                     t.start_ns[i], t.end_ns(i), 0, 0, 0, span});
  }
  std::sort(steps.begin(), steps.end(),
            [](const StepWindow& a, const StepWindow& b) {
              return a.host_start_ns < b.host_start_ns;
            });
  // The same step recorded twice (two threads): keep the first.
  steps.erase(std::unique(steps.begin(), steps.end(),
                          [](const StepWindow& a, const StepWindow& b) {
                            return a.number == b.number;
                          }),
              steps.end());
  if (steps.empty()) {
    // docs/semantics.md §2: no ProfilerStep at all -> one step 0 over the host
    // activity, Python frames the reader left out included.
    const trace::FrameExtent frames =
        static_cast<size_t>(span) < trace.left_out_frames.size()
            ? trace.left_out_frames[static_cast<size_t>(span)]
            : trace::FrameExtent{};
    int64_t lo = frames.first_start_ns;
    int64_t hi = frames.last_end_ns;
    for (uint32_t i = begin; i < end; ++i) {
      if (!CountsForImplicitStep(t.kind[i]) ||
          t.phase[i] != trace::EventPhase::kComplete)
        continue;
      lo = std::min(lo, t.start_ns[i]);
      hi = std::max(hi, t.end_ns(i));
    }
    if (lo > hi) return;  // no host activity: no step
    steps.push_back({0, lo, hi, 0, 0, 0, span});
  }

  // Device activities launched by runtime calls that lie entirely inside a
  // step's host range.
  const size_t n = steps.size();
  std::vector<int64_t> device_min(n, std::numeric_limits<int64_t>::max());
  std::vector<int64_t> device_max(n, std::numeric_limits<int64_t>::min());
  std::vector<uint32_t> step_of_runtime(t.size(), kNoEvent);
  {
    size_t s = 0;
    for (uint32_t r : links.runtimes) {
      if (!in_span(r)) continue;
      while (s < n && steps[s].host_end_ns < t.start_ns[r]) ++s;
      if (s == n) break;
      if (t.start_ns[r] >= steps[s].host_start_ns &&
          t.end_ns(r) <= steps[s].host_end_ns) {
        step_of_runtime[r] = static_cast<uint32_t>(s);
      }
    }
  }
  bool any_matched = false;
  for (uint32_t d : links.device_activities) {
    const uint32_t runtime = links.device_runtime[d];
    if (!in_span(d) || runtime == kNoEvent ||
        step_of_runtime[runtime] == kNoEvent)
      continue;
    const uint32_t s = step_of_runtime[runtime];
    ++steps[s].device_activity_count;
    device_min[s] = std::min(device_min[s], t.start_ns[d]);
    device_max[s] = std::max(device_max[s], t.end_ns(d));
    any_matched = true;
  }

  std::optional<int64_t> previous_end;
  if (any_matched) {
    previous_end = steps[0].host_start_ns;
    // Device work still running from before the first step delays its start.
    if (steps[0].device_activity_count > 0) {
      for (uint32_t d : links.device_activities) {
        if (!in_span(d)) continue;
        const uint32_t runtime = links.device_runtime[d];
        const bool matched =
            runtime != kNoEvent && step_of_runtime[runtime] != kNoEvent;
        if (!matched && t.end_ns(d) < device_min[0])
          previous_end = std::max(*previous_end, t.end_ns(d));
      }
    }
  }
  for (size_t s = 0; s < n; ++s) {
    StepWindow& step = steps[s];
    step.start_ns = previous_end ? std::max(*previous_end, step.host_start_ns)
                                 : step.host_start_ns;
    step.end_ns = step.device_activity_count > 0
                      ? std::max(step.host_end_ns, device_max[s])
                      : std::max(step.host_end_ns, step.start_ns);
    if (previous_end) previous_end = step.end_ns;
  }

  size_t keep = n;
  if (any_matched && n > 1) {
    while (keep > 0 && steps[keep - 1].device_activity_count == 0) --keep;
    if (keep > 1 &&
        steps[keep - 2].device_activity_count * kIncompleteStepRatio >
            steps[keep - 1].device_activity_count) {
      --keep;
    }
  }
  result.dropped += static_cast<int32_t>(n - keep);
  steps.resize(keep);
  if (!steps.empty())
    result.windows.push_back({steps.front().start_ns, steps.back().end_ns});
  result.kept.insert(result.kept.end(), steps.begin(), steps.end());
}

}  // namespace

int64_t ProfilerStepNumber(std::string_view name) {
  name.remove_prefix(std::min(name.size(), kStepPrefix.size()));
  int64_t number = 0;
  std::from_chars(name.data(), name.data() + name.size(), number);
  return number;
}

StepWindows FindSteps(const trace::Trace& trace, const EventLinks& links) {
  StepWindows result;
  const uint32_t n = static_cast<uint32_t>(trace.events.size());
  for (size_t s = 0; s < trace.span_begin.size(); ++s) {
    const uint32_t end =
        s + 1 < trace.span_begin.size() ? trace.span_begin[s + 1] : n;
    FindStepsInSpan(trace, links, trace.span_begin[s], end,
                    static_cast<int32_t>(s), result);
  }
  return result;
}

}  // namespace profdiff::analysis
