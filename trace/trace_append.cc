#include "trace/trace_append.h"

#include <algorithm>

namespace profdiff::trace {
namespace {

template <typename T>
void Extend(std::vector<T>& into, const std::vector<T>& from) {
  into.insert(into.end(), from.begin(), from.end());
}

template <typename T, typename F>
void ExtendMapped(std::vector<T>& into, const std::vector<T>& from, F map) {
  const size_t old_size = into.size();
  into.resize(old_size + from.size());
  std::transform(from.begin(), from.end(),
                 into.begin() + static_cast<ptrdiff_t>(old_size), map);
}

int64_t RemapNameId(int64_t id, const std::vector<StringId>& remap) {
  return -1 - static_cast<int64_t>(remap[static_cast<size_t>(-1 - id)].value);
}

}  // namespace

void AppendTrace(Trace& into, const Trace& from, const AppendShift& shift) {
  EventTable& t = into.events;
  const EventTable& s = from.events;
  const size_t first_row = t.size();
  std::vector<StringId> remap(from.strings.size());
  for (uint32_t k = 0; k < from.strings.size(); ++k)
    remap[k] = into.strings.Intern(from.strings.Get(StringId{k}));
  auto remap_string = [&](StringId id) { return remap[id.value]; };
  auto offset_id = [&](int64_t id) {
    return id == kNoId ? kNoId : id + shift.id_offset;
  };
  const uint32_t arg_shift = static_cast<uint32_t>(into.args.size());

  Extend(t.kind, s.kind);
  Extend(t.phase, s.phase);
  ExtendMapped(t.name, s.name, remap_string);
  ExtendMapped(t.category, s.category, remap_string);
  ExtendMapped(t.start_ns, s.start_ns,
               [&](int64_t ns) { return ns + shift.time_ns; });
  Extend(t.duration_ns, s.duration_ns);
  Extend(t.pid, s.pid);
  Extend(t.tid, s.tid);
  ExtendMapped(t.correlation, s.correlation, offset_id);
  ExtendMapped(t.external_id, s.external_id, offset_id);
  Extend(t.sequence_number, s.sequence_number);
  Extend(t.forward_thread_id, s.forward_thread_id);
  Extend(t.python_id, s.python_id);
  Extend(t.python_parent_id, s.python_parent_id);
  ExtendMapped(t.flow_id, s.flow_id, offset_id);
  ExtendMapped(t.input_shapes, s.input_shapes, remap_string);
  t.arg_begin.reserve(t.arg_begin.size() + s.size());
  for (size_t i = 1; i < s.arg_begin.size(); ++i)
    t.arg_begin.push_back(s.arg_begin[i] + arg_shift);

  // Ids that are names point at the same text in `into`'s strings.
  if (shift.string_id_rows != nullptr) {
    for (const StringIdRow& r : *shift.string_id_rows) {
      const size_t row = first_row + r.row;
      if (r.columns & StringIdRow::kPid)
        t.pid[row] = RemapNameId(s.pid[r.row], remap);
      if (r.columns & StringIdRow::kTid)
        t.tid[row] = RemapNameId(s.tid[r.row], remap);
      if (r.columns & StringIdRow::kFlowId)
        t.flow_id[row] = RemapNameId(s.flow_id[r.row], remap);
    }
  } else {
    const int64_t strings = static_cast<int64_t>(remap.size());
    for (size_t i = first_row; i < t.size(); ++i) {
      if (t.pid[i] < 0 && -1 - t.pid[i] < strings)
        t.pid[i] = RemapNameId(t.pid[i], remap);
      if (t.tid[i] < 0 && -1 - t.tid[i] < strings)
        t.tid[i] = RemapNameId(t.tid[i], remap);
    }
  }

  Extend(into.args.key, from.args.key);
  Extend(into.args.int_value, from.args.int_value);
  Extend(into.args.double_value, from.args.double_value);
  ExtendMapped(into.args.string_value, from.args.string_value, remap_string);
  into.counters.unknown_category_events +=
      from.counters.unknown_category_events;
  into.counters.unsupported_phase_events +=
      from.counters.unsupported_phase_events;
  into.counters.python_frames_left_out += from.counters.python_frames_left_out;
  for (const FrameExtent& extent : from.left_out_frames)
    into.left_out_frames.back().Add(extent, shift.time_ns);
}

}  // namespace profdiff::trace
