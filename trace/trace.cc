#include "trace/trace.h"

namespace profdiff::trace {
namespace {

// Arguments per event are few (at most a dozen), so a linear scan beats any
// index.
template <typename Column, typename T = typename Column::value_type>
std::optional<T> FindArg(const Trace& trace, size_t i, ArgKey key,
                         const Column& column) {
  const uint32_t begin = trace.events.arg_begin[i];
  const uint32_t end = trace.events.arg_begin[i + 1];
  for (uint32_t a = begin; a < end; ++a) {
    if (trace.args.key[a] == key) return column[a];
  }
  return std::nullopt;
}

}  // namespace

void EventTable::Clear() {
  ForEachColumn([](auto& column) { column.clear(); });
  arg_begin.clear();
}

void Trace::ClearKeepingCapacity() {
  Trace empty;
  empty.events = std::move(events);
  empty.events.Clear();
  empty.args = std::move(args);
  empty.args.Clear();
  *this = std::move(empty);
}

void ArgTable::Clear() {
  key.clear();
  int_value.clear();
  double_value.clear();
  string_value.clear();
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
