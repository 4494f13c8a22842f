// Which kept step each event belongs to, so tables can give per-step samples
// (the differ's per-step means and noise, SEMANTICS.md §7 "steps are not
// concatenated").
//
// Host events belong to the step whose host range holds their start; device
// activities to the step of the runtime call that launched them, else to the
// (device-extended) step that holds their start.
#ifndef PROFDIFF_ANALYSIS_STEP_OF_EVENT_H_
#define PROFDIFF_ANALYSIS_STEP_OF_EVENT_H_

#include <cstdint>
#include <vector>

#include "analysis/event_links.h"
#include "analysis/steps.h"
#include "trace/trace.h"

namespace profdiff::analysis {

inline constexpr int32_t kNoStep = -1;

// Per event: an index into steps.kept, or kNoStep.
std::vector<int32_t> AssignEventsToSteps(const trace::Trace& trace,
                                         const EventLinks& links,
                                         const StepWindows& steps);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_STEP_OF_EVENT_H_
