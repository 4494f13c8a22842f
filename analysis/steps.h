// Training steps as the TensorBoard plugin defines them (docs/semantics.md §2):
// ProfilerStep#N host ranges extended to the device work they launched, with
// incomplete trailing steps dropped.
#ifndef PROFDIFF_ANALYSIS_STEPS_H_
#define PROFDIFF_ANALYSIS_STEPS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/event_links.h"
#include "analysis/interval_set.h"
#include "trace/trace.h"

namespace profdiff::analysis {

struct StepWindow {
  int64_t number =
      0;  // N of ProfilerStep#N; 0 for the implicit whole-trace step
  int64_t host_start_ns = 0;  // the ProfilerStep range on the host
  int64_t host_end_ns = 0;
  int64_t start_ns = 0;  // after device extension
  int64_t end_ns = 0;
  int32_t device_activity_count =
      0;  // kernels/memcpy/memset launched from inside the host range
  int32_t span = 0;  // which span (trace file) of the worker it belongs to
};

struct StepWindows {
  std::vector<StepWindow> kept;
  int32_t dropped = 0;

  // Per span with kept steps: [first kept start, last kept end)
  // (docs/semantics.md §4's denominator).
  std::vector<Interval> windows;
};

// N of a "ProfilerStep#N" name (0 when the name has no number).
int64_t ProfilerStepNumber(std::string_view name);

// Finds the steps of `trace`, span by span.
StepWindows FindSteps(const trace::Trace& trace, const EventLinks& links);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_STEPS_H_
