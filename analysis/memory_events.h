// The "[memory]" events of a worker, each with its device, its step, the totals
// after it and the operator that holds it: what the memory view and tables read
// (issue 24).
//
// Design, following the TensorBoard plugin (kineto
// tb_plugin/torch_tb_profiler/profiler/ memory_parser.py,
// MemoryParser.find_memory_nodes and get_preprocessed_records):
// 1. An event belongs to the innermost operator on its thread whose [start,
//    end) holds its timestamp. When that operator is not an operator row
//    (ProfilerStep#, Optimizer.*, (Distributed)DataParallel.forward) the event
//    belongs to none, as the plugin leaves such records "staled" rather than
//    passing them to an enclosing operator. Where we differ: the plugin's tree
//    also holds user annotations, so an event inside a record_function range
//    inside an operator is staled there and the operator's here.
// 2. Allocated after an event is its "Total Allocated". Traces before ~2021-07
//    have none: then it is the running sum of "Bytes" over the device's events
//    from the first one, so peaks and curves are exact up to the memory
//    allocated before the trace began.
// 3. A free is matched to the allocation before it with the same address on the
//    same device (the plugin's rule, last allocation wins); frees with no
//    address match nothing.
// 4. An event's step is that of AssignEventsToSteps: the allocator records it
//    on a host thread, so the host ProfilerStep range holding it, not the
//    device-extended window (issue 44, analysis/step_of_event.h).
#ifndef PROFDIFF_ANALYSIS_MEMORY_EVENTS_H_
#define PROFDIFF_ANALYSIS_MEMORY_EVENTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/event_links.h"
#include "trace/trace.h"

namespace profdiff::analysis {

inline constexpr int32_t kNoMemoryStep = -1;

struct MemoryEvent {
  uint32_t event = kNoEvent;     // index in the trace
  int32_t device = 0;            // index into MemoryEvents::devices
  int32_t step = kNoMemoryStep;  // kept step holding it
  int64_t time_ns = 0;
  int64_t bytes = 0;      // negative: a free
  int64_t allocated = 0;  // on the device, after the event
  int64_t reserved = 0;
  uint32_t op = kNoEvent;  // operator holding it (an operator row), or kNoEvent
  // Frees: the operator that allocated the block (kNoEvent when unmatched or
  // allocated outside every operator); allocations: kNoEvent.
  uint32_t allocating_op = kNoEvent;
  // Frees: an allocation with the same address came before.
  bool matched = false;
  std::optional<int64_t> address;  // "Addr" (absent before torch 1.10)
};

struct MemoryEvents {
  std::vector<std::string>
      devices;  // "cpu", "cuda:0", "device<type>:<id>"; sorted
  std::vector<bool> allocated_from_bytes;  // per device: no "Total Allocated"
  std::vector<MemoryEvent> events;  // every memory event, by device, then time
};

// Every memory event of `trace`, attributed and assigned to kept steps;
// `step_of_event` is AssignEventsToSteps of `trace`.
MemoryEvents CollectMemoryEvents(const trace::Trace& trace,
                                 const EventLinks& links,
                                 const std::vector<int32_t>& step_of_event);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_MEMORY_EVENTS_H_
