// The memory part of a worker profile (issue 24): device peaks and curves,
// where each peak happened, and the operator and module memory tables, with the
// source they came from.
#ifndef PROFDIFF_ANALYSIS_MEMORY_PROFILE_H_
#define PROFDIFF_ANALYSIS_MEMORY_PROFILE_H_

#include <vector>

#include "analysis/event_links.h"
#include "analysis/memory_events.h"
#include "analysis/memory_view.h"
#include "analysis/module_tree.h"
#include "analysis/operator_view.h"
#include "profdiff/v1/profile.pb.h"
#include "trace/trace.h"

namespace profdiff::analysis {

struct MemoryInputs {
  const trace::Trace& trace;
  const EventLinks& links;
  const std::vector<int32_t>& step_of_event;
  const ModuleTree& tree;
  const MemoryEvents& events;
  const std::vector<DeviceMemory>& devices;  // ComputeMemory of `events`
  OperatorGrouping grouping;
};

// Sets memory, memory_source, operator_memory and module_memory of `profile`.
void FillMemory(const MemoryInputs& in, v1::WorkerProfile& profile);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_MEMORY_PROFILE_H_
