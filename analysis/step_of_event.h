// Which kept step each event belongs to, so tables can give per-step samples
// (the differ's per-step means and noise, docs/semantics.md §7 "steps are not
// concatenated").
//
// Design (issue 44):
// 1. Host events — every event recorded on a host thread: operators,
//    annotations, runtime calls, and instants such as the allocator's
//    "[memory]" records — belong to the step whose host ProfilerStep range
//    [host_start, host_end) holds their start. The device extension of
//    docs/semantics.md §2 moves a step's window to its device work; on a
//    GPU-bound run that window starts well after the host began the step, so
//    using it for host events would drop the step's first milliseconds of host
//    work.
// 2. Device events (kernels, memcpy, memset, gpu_user_annotation) belong to
//    the step of the runtime call that launched them, else to the
//    (device-extended) step window that holds their start.
// The step breakdown and the GPU metrics keep the device-extended windows
// (docs/semantics.md §3, §4): they measure a step's wall time, not its events.
#ifndef PROFDIFF_ANALYSIS_STEP_OF_EVENT_H_
#define PROFDIFF_ANALYSIS_STEP_OF_EVENT_H_

#include <cstdint>
#include <vector>

#include "analysis/event_links.h"
#include "analysis/steps.h"
#include "trace/trace.h"

namespace profdiff::analysis {

inline constexpr int32_t kNoStep = -1;

// The kept step whose host range [host_start_ns, host_end_ns) holds `time_ns`
// (an index into steps.kept), or kNoStep: the step of a host event starting
// then.
int32_t HostStepAt(const StepWindows& steps, int64_t time_ns);

// Per event: an index into steps.kept, or kNoStep (flows and metadata have
// none).
std::vector<int32_t> AssignEventsToSteps(const trace::Trace& trace,
                                         const EventLinks& links,
                                         const StepWindows& steps);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_STEP_OF_EVENT_H_
