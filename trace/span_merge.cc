#include "trace/span_merge.h"

#include <utility>

namespace profdiff::trace {
namespace {

// Ids of span k are moved to k << kSpanIdShift; real ids stay far below 2^40.
constexpr int kSpanIdShift = 40;

int64_t OffsetId(int64_t id, int64_t offset) { return id == kNoId ? kNoId : id + offset; }

void Append(Trace& into, const Trace& span, int64_t span_index) {
  EventTable& t = into.events;
  const EventTable& s = span.events;
  std::vector<StringId> remap(span.strings.size());
  for (uint32_t k = 0; k < span.strings.size(); ++k) remap[k] = into.strings.Intern(span.strings.Get(StringId{k}));
  const int64_t time_shift = span.metadata.base_time_ns - into.metadata.base_time_ns;
  const int64_t id_offset = span_index << kSpanIdShift;
  const uint32_t arg_shift = static_cast<uint32_t>(into.args.size());
  into.span_begin.push_back(static_cast<uint32_t>(t.size()));
  for (size_t i = 0; i < s.size(); ++i) {
    t.kind.push_back(s.kind[i]);
    t.phase.push_back(s.phase[i]);
    t.name.push_back(remap[s.name[i].value]);
    t.category.push_back(remap[s.category[i].value]);
    t.start_ns.push_back(s.start_ns[i] + time_shift);
    t.duration_ns.push_back(s.duration_ns[i]);
    // Negative pids/tids name strings ("Spans"): keep them pointing at the same text.
    t.pid.push_back(s.pid[i] < 0 ? -1 - remap[-1 - s.pid[i]].value : s.pid[i]);
    t.tid.push_back(s.tid[i] < 0 ? -1 - remap[-1 - s.tid[i]].value : s.tid[i]);
    t.correlation.push_back(OffsetId(s.correlation[i], id_offset));
    t.external_id.push_back(OffsetId(s.external_id[i], id_offset));
    t.sequence_number.push_back(s.sequence_number[i]);
    t.forward_thread_id.push_back(s.forward_thread_id[i]);
    t.python_id.push_back(s.python_id[i]);
    t.python_parent_id.push_back(s.python_parent_id[i]);
    t.flow_id.push_back(OffsetId(s.flow_id[i], id_offset));
    t.input_shapes.push_back(remap[s.input_shapes[i].value]);
    t.arg_begin.push_back(s.arg_begin[i + 1] + arg_shift);
  }
  for (size_t a = 0; a < span.args.size(); ++a) {
    into.args.key.push_back(span.args.key[a]);
    into.args.int_value.push_back(span.args.int_value[a]);
    into.args.double_value.push_back(span.args.double_value[a]);
    into.args.string_value.push_back(remap[span.args.string_value[a].value]);
  }
  into.counters.unknown_category_events += span.counters.unknown_category_events;
  into.counters.unsupported_phase_events += span.counters.unsupported_phase_events;
}

}  // namespace

Trace MergeSpans(std::vector<Trace> spans) {
  if (spans.empty()) {
    Trace empty;
    empty.events.arg_begin.push_back(0);
    return empty;
  }
  Trace merged = std::move(spans[0]);
  for (size_t k = 1; k < spans.size(); ++k) Append(merged, spans[k], static_cast<int64_t>(k));
  return merged;
}

}  // namespace profdiff::trace
