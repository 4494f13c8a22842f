// How the events of a trace relate: operators nest by time on each host thread,
// runtime calls belong to the operator that launched them, device activities to
// the runtime call that launched them (docs/semantics.md §5). Everything else
// in analysis/ reads these links.
#ifndef PROFDIFF_ANALYSIS_EVENT_LINKS_H_
#define PROFDIFF_ANALYSIS_EVENT_LINKS_H_

#include <cstdint>
#include <vector>

#include "trace/trace.h"

namespace profdiff::analysis {

// "No event" in the per-event link vectors.
inline constexpr uint32_t kNoEvent = UINT32_MAX;

struct EventLinks {
  std::vector<uint32_t>
      operators;  // kCpuOp events, sorted by start (then longer first)
  std::vector<uint32_t> runtimes;  // kRuntime/kDriver events, sorted by start
  std::vector<uint32_t>
      device_activities;  // kernels, memcpy, memset, sorted by start
  // Per event (size = number of events); kNoEvent where it does not apply.
  std::vector<uint32_t>
      op_parent;  // operator -> enclosing operator on its thread
  std::vector<uint32_t> runtime_op;  // runtime call -> launching operator
  std::vector<uint32_t>
      device_runtime;  // device activity -> launching runtime call
  // Runtime calls whose External id matched no event and were attached to the
  // innermost enclosing operator instead (docs/semantics.md §5, torch ~1.12
  // traces).
  int32_t runtime_linked_by_containment = 0;
  // Operators merged into a parent of the same name whose only child they were
  // (docs/semantics.md §5); they are not in `operators`, and their children and
  // runtime calls are the parent's.
  int32_t operators_merged = 0;

  // The operator that launched device activity `i`, or kNoEvent.
  uint32_t DeviceOp(uint32_t i) const {
    const uint32_t runtime = device_runtime[i];
    return runtime == kNoEvent ? kNoEvent : runtime_op[runtime];
  }
};

// Builds the links for `trace`. Runs in O(n log n).
EventLinks LinkEvents(const trace::Trace& trace);

// Nests `containers` by time containment on each (pid, tid) and finds, for each
// of `leaves`, the innermost container around it. Outputs are indexed by event:
// container_parent[c] and leaf_container[l] (kNoEvent when none); both must be
// sized to the event count.
void NestOnThreads(const trace::Trace& trace,
                   const std::vector<uint32_t>& containers,
                   const std::vector<uint32_t>& leaves,
                   std::vector<uint32_t>& container_parent,
                   std::vector<uint32_t>& leaf_container);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_EVENT_LINKS_H_
