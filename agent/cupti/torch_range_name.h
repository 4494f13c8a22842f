// Reads what an NVTX range's message says in PyTorch's conventions: the
// operator ranges of torch.autograd.profiler.emit_nvtx ("aten::mm, seq = 12,
// sizes = [[2, 3], [3, 4]]"), "ProfilerStep#N" and "nn.Module: <Class>" ranges,
// and plain user ranges.
#ifndef PROFDIFF_AGENT_CUPTI_TORCH_RANGE_NAME_H_
#define PROFDIFF_AGENT_CUPTI_TORCH_RANGE_NAME_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "trace/event_kind.h"

namespace profdiff::agent::cupti {

struct TorchRangeName {
  std::string_view
      name;  // the message without emit_nvtx's ", seq = ..." suffix
  trace::EventKind kind = trace::EventKind::kUserAnnotation;
  int64_t sequence_number = -1;  // "seq = N"; -1 when absent
  std::string input_shapes;      // "sizes = [...]" as compact JSON
                                 // ("[[2,3],[3,4]]"); "" if absent
  std::optional<int64_t> step;   // N of "ProfilerStep#N"
};

// Classifies `message` (the result views into it):
// - "ProfilerStep#N" is a profiler step;
// - "nn.Module: ..." a user annotation (docs/semantics.md §7's second module
//   source);
// - a message with emit_nvtx's ", seq = " / ", op_id = " / ", sizes = " suffix,
//   or a name with "::" (aten::mm, c10d::allreduce_), an operator (cpu_op), so
//   runtime calls nest in it;
// - anything else a user annotation.
TorchRangeName ParseTorchRangeName(std::string_view message);

}  // namespace profdiff::agent::cupti

#endif  // PROFDIFF_AGENT_CUPTI_TORCH_RANGE_NAME_H_
