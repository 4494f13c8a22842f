#include "trace/trace.h"

namespace profdiff::trace {
namespace {

// Arguments per event are few (at most a dozen), so a linear scan beats any index.
template <typename Column, typename T = typename Column::value_type>
std::optional<T> FindArg(const Trace& trace, size_t i, ArgKey key, const Column& column) {
  const uint32_t begin = trace.events.arg_begin[i];
  const uint32_t end = trace.events.arg_begin[i + 1];
  for (uint32_t a = begin; a < end; ++a) {
    if (trace.args.key[a] == key) return column[a];
  }
  return std::nullopt;
}

}  // namespace

void EventTable::Reserve(size_t events) {
  kind.reserve(events);
  phase.reserve(events);
  name.reserve(events);
  category.reserve(events);
  start_ns.reserve(events);
  duration_ns.reserve(events);
  pid.reserve(events);
  tid.reserve(events);
  correlation.reserve(events);
  external_id.reserve(events);
  sequence_number.reserve(events);
  forward_thread_id.reserve(events);
  python_id.reserve(events);
  python_parent_id.reserve(events);
  flow_id.reserve(events);
  input_shapes.reserve(events);
  arg_begin.reserve(events + 1);
}

std::optional<int64_t> Trace::IntArg(size_t i, ArgKey key) const {
  return FindArg(*this, i, key, args.int_value);
}
std::optional<double> Trace::DoubleArg(size_t i, ArgKey key) const {
  return FindArg(*this, i, key, args.double_value);
}
std::optional<StringId> Trace::StringArg(size_t i, ArgKey key) const {
  return FindArg(*this, i, key, args.string_value);
}

}  // namespace profdiff::trace
