// Per-step event counts and durations the way HTA's TraceDiff.compare_traces
// counts them (docs/semantics.md §6), kept in the profile so `--compare hta`
// works from stored profiles too.
//
// Design:
// 1. Integer microseconds as HTA keeps them: start rounded up, end rounded
//    down.
// 2. Host events take the ProfilerStep whose [start, end) holds their start;
//    device activities the step of the runtime call that launched them. Events
//    in no step are left out.
// 3. Every ProfilerStep counts, kept by docs/semantics.md §2 or not: HTA
//    numbers iterations itself.
#ifndef PROFDIFF_ANALYSIS_HTA_STEP_OPS_H_
#define PROFDIFF_ANALYSIS_HTA_STEP_OPS_H_

#include <cstdint>
#include <vector>

#include "analysis/event_links.h"
#include "trace/trace.h"

namespace profdiff::analysis {

struct HtaOpRow {
  trace::StringId name;
  bool device = false;
  int64_t count = 0;
  int64_t total_duration_us = 0;
};

struct HtaStepOps {
  int64_t step = 0;           // N of ProfilerStep#N
  std::vector<HtaOpRow> ops;  // by name
};

// Steps in step-number order.
std::vector<HtaStepOps> ComputeHtaStepOps(const trace::Trace& trace,
                                          const EventLinks& links);

// HTA's integer-µs rounding of a nanosecond time.
int64_t CeilMicros(int64_t ns);
int64_t FloorMicros(int64_t ns);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_HTA_STEP_OPS_H_
