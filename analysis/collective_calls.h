// A worker's collective calls (README.md, "Communication across ranks"): each
// call of a collective, what it moved and how long it took, and per kept step
// how much collective time no compute overlapped.
//
// Design:
// 1. A call is an outermost collective range on its host thread (`c10d::*`,
//    `record_param_comms`, `nccl:*`, `gloo:*`, docs/semantics.md §3) with what
//    nests inside it (`c10d::allreduce_` > `record_param_comms` >
//    `nccl:all_reduce`). Its name comes from Kineto's "Collective name", else
//    the `nccl:`/`gloo:` range, else the `c10d::` op; ranges that name no
//    collective (a bare `record_param_comms`, `wait`) are not calls.
// 2. Its time is the union of the device activities launched from inside it
//    (NCCL kernels); without any, its host span. Gloo runs a collective on a
//    worker thread as a `gloo:*` range, while the calling thread only enqueues
//    it (`c10d::allreduce_`): the k-th enqueue of a collective lends its
//    arguments to the k-th `gloo:*` range of that collective and is not a call.
// 3. Message: "In/Out msg nelems" x the element size of "dtype"; without them
//    Σ elements x element size of the `nccl:`/`gloo:` range's inputs ("Input
//    Dims" and "Input type"), the TensorBoard plugin's rule.
// 4. Exposed time: on the device, collective kernel time no compute kernel
//    overlaps; on the host, a call's span not covered by host operators on
//    other threads (collective ranges and what encloses them excluded).
#ifndef PROFDIFF_ANALYSIS_COLLECTIVE_CALLS_H_
#define PROFDIFF_ANALYSIS_COLLECTIVE_CALLS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/event_links.h"
#include "analysis/steps.h"
#include "trace/trace.h"

namespace profdiff::analysis {

struct CollectiveCallRow {
  std::string collective;  // CanonicalCollective
  std::string process_group;
  std::string process_group_ranks;
  int32_t group_size = 0;
  std::string dtype;
  int64_t in_elements = 0;
  int64_t out_elements = 0;
  int64_t bytes = 0;
  // The trace records no message size (no "In/Out msg nelems", no "Input Dims"
  // on its library range): bytes 0 means unknown, not an empty message.
  bool size_missing = false;
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  bool on_device = false;
  int32_t step_index = -1;  // into steps.kept; -1 outside every kept step
  int32_t ordinal = 0;      // among calls of (step, process group, collective)
};

struct CollectiveStepTime {
  int64_t collective_ns = 0;  // union of the step's collective intervals
  int64_t exposed_ns = 0;     // the part no compute overlapped
};

struct CollectiveCalls {
  std::vector<CollectiveCallRow> calls;   // by start
  std::vector<CollectiveStepTime> steps;  // per kept step
};

CollectiveCalls ComputeCollectiveCalls(
    const trace::Trace& trace, const EventLinks& links,
    const StepWindows& steps, const std::vector<int32_t>& step_of_event);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_COLLECTIVE_CALLS_H_
