// Which forward operator each backward root derives from (docs/semantics.md
// §7), so the module tree can hang the backward pass under the modules whose
// forward ran the op.
//
// Design:
// 1. A backward root is an operator named
//    "autograd::engine::evaluate_function: <Node>"; its child "<Node>" (e.g.
//    AddmmBackward0) is the autograd function PyTorch links.
// 2. Two sources, flows first: Kineto's "fwdbwd" flow pairs (ph "s" at the
//    forward op's start, ph "f" at the backward function's start, one id),
//    bound to the innermost operator starting at that time on that thread, as
//    HTA binds them; then, for roots no flow reached, the ops'
//    "Sequence number" + "Fwd thread id" arguments, the way PyTorch pairs them
//    before writing flows: the forward op with that sequence number on that
//    thread of the same process, the latest-starting one (that started before
//    the root) when several share it.
// 3. "Fwd thread id" is the profiler's own thread number (1, 2, ...), which
//    Kineto traces do not write as `tid` (they write the system thread id). A
//    number that is itself a tid with forward ops means that thread; otherwise
//    each number means the thread whose sequence numbers match most of its
//    backward roots.
// 4. AccumulateGrad roots have no forward op; the tree groups them with the
//    root before them.
#ifndef PROFDIFF_ANALYSIS_BACKWARD_LINKS_H_
#define PROFDIFF_ANALYSIS_BACKWARD_LINKS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/event_links.h"
#include "trace/trace.h"

namespace profdiff::analysis {

// The name prefix of a backward root (what the plugin calls
// BACKWARD_ROOT_PREFIX).
inline constexpr std::string_view kBackwardRootPrefix =
    "autograd::engine::evaluate_function: ";

struct BackwardLinks {
  std::vector<uint32_t>
      roots;  // every backward root, by start (nested ones included)
  std::vector<uint32_t>
      forward_op;  // per event: backward root -> its forward operator
  std::vector<bool> accumulate_grad;  // per event: an AccumulateGrad root
  bool has_flows = false;             // the trace has "fwdbwd" flow events
  bool has_sequence_numbers = false;  // some operator names its forward thread
  int32_t linked_by_flow = 0;
  int32_t linked_by_sequence = 0;
  int32_t unlinked = 0;  // roots other than AccumulateGrad with no forward op
  int32_t accumulate_grad_roots = 0;
  // fwdbwd flows that linked nothing: an end missing or repeated, an end on no
  // op or on no root, or a root another flow had linked.
  int32_t flows_unused = 0;

  int32_t linked() const { return linked_by_flow + linked_by_sequence; }
};

// `links` must be LinkEvents(trace). The per-event vectors are sized to the
// trace. Costs one pass over the events, and a sort of the ops that carry
// sequence numbers: O(n log n).
BackwardLinks LinkBackward(const trace::Trace& trace, const EventLinks& links);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_BACKWARD_LINKS_H_
