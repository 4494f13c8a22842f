#include "trace/span_merge.h"

#include <utility>

#include "trace/trace_append.h"

namespace profdiff::trace {
namespace {

// Ids of span k are moved to k << kSpanIdShift; real ids stay far below 2^40.
constexpr int kSpanIdShift = 40;

}  // namespace

Trace MergeSpans(std::vector<Trace> spans) {
  if (spans.empty()) {
    Trace empty;
    empty.events.arg_begin.push_back(0);
    return empty;
  }
  Trace merged = std::move(spans[0]);
  for (size_t k = 1; k < spans.size(); ++k) {
    merged.span_begin.push_back(static_cast<uint32_t>(merged.events.size()));
    merged.left_out_frames.emplace_back();
    AppendTrace(merged, spans[k],
                SpanMergeShift(k, spans[k].metadata.base_time_ns,
                               merged.metadata.base_time_ns));
  }
  return merged;
}

AppendShift SpanMergeShift(size_t k, int64_t base_time_ns,
                           int64_t first_base_time_ns) {
  return {.time_ns = base_time_ns - first_base_time_ns,
          .id_offset = static_cast<int64_t>(k) << kSpanIdShift};
}

}  // namespace profdiff::trace
