// One span of profiler events in memory: a columnar EventTable, its typed
// arguments, the interned strings, and what the file said about its worker
// (devices, rank, time base).
//
// Design:
// 1. Columns, not structs: analysis scans a few columns of many events.
// 2. Times are int64 nanoseconds relative to `metadata.base_time_ns`, exactly
//    as written.
// 3. Arguments are sparse: event i owns rows [arg_begin[i], arg_begin[i + 1])
//    of `args`.
#ifndef PROFDIFF_TRACE_TRACE_H_
#define PROFDIFF_TRACE_TRACE_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "trace/event_kind.h"
#include "trace/string_pool.h"

namespace profdiff::trace {

// "No value" markers for the optional integer columns.
inline constexpr int64_t kNoId = 0;  // correlation, external id, fwd thread id
inline constexpr int64_t kNoSequence = -1;  // sequence number, python ids

// Events in columns; all vectors have size() entries (arg_begin has size() +
// 1).
struct EventTable {
  std::vector<EventKind> kind;
  std::vector<EventPhase> phase;
  std::vector<StringId> name;
  std::vector<StringId> category;
  std::vector<int64_t> start_ns;
  std::vector<int64_t> duration_ns;
  std::vector<int64_t> pid;  // OS pid on the host; device index on a device
  std::vector<int64_t> tid;  // thread on the host; stream on a device
  std::vector<int64_t> correlation;
  std::vector<int64_t> external_id;
  std::vector<int64_t> sequence_number;
  std::vector<int64_t> forward_thread_id;
  std::vector<int64_t> python_id;
  std::vector<int64_t> python_parent_id;
  std::vector<int64_t> flow_id;
  std::vector<StringId> input_shapes;
  std::vector<uint32_t> arg_begin;

  size_t size() const { return kind.size(); }
  int64_t end_ns(size_t i) const { return start_ns[i] + duration_ns[i]; }
  void Clear();  // keeps capacity
  // Column by column (string ids compare as ids: equal only within one pool's
  // numbering).
  friend bool operator==(const EventTable&, const EventTable&) = default;

  // Calls `f` on every per-event column (not arg_begin, which has one more
  // entry).
  template <typename F>
  void ForEachColumn(F f) {
    ForEachColumnOf(*this, f);
  }
  template <typename F>
  void ForEachColumn(F f) const {
    ForEachColumnOf(*this, f);
  }

 private:
  template <typename Self, typename F>
  static void ForEachColumnOf(Self& self, F& f) {
    f(self.kind);
    f(self.phase);
    f(self.name);
    f(self.category);
    f(self.start_ns);
    f(self.duration_ns);
    f(self.pid);
    f(self.tid);
    f(self.correlation);
    f(self.external_id);
    f(self.sequence_number);
    f(self.forward_thread_id);
    f(self.python_id);
    f(self.python_parent_id);
    f(self.flow_id);
    f(self.input_shapes);
  }
};

// Typed argument rows, grouped by event in event order.
struct ArgTable {
  std::vector<ArgKey> key;
  std::vector<int64_t> int_value;
  std::vector<double> double_value;
  std::vector<StringId> string_value;

  size_t size() const { return key.size(); }
  void Clear();  // keeps capacity
  friend bool operator==(const ArgTable&, const ArgTable&) = default;
};

// A device from the trace's top-level deviceProperties.
struct DeviceInfo {
  int64_t id = 0;
  std::string name;
  int64_t total_global_mem_bytes = 0;
  int32_t num_sms = 0;
  int32_t compute_major = 0;
  int32_t compute_minor = 0;
  int32_t max_threads_per_multiprocessor = 0;
  int32_t warp_size = 0;
  friend bool operator==(const DeviceInfo&, const DeviceInfo&) = default;
};

enum class SourceFormat : uint8_t {
  kUnspecified,
  kKinetoJson,
  kLegacyJson,
  kCupti
};

// What the file says about the worker that wrote it.
struct TraceMetadata {
  std::vector<DeviceInfo> devices;
  bool has_distributed_info = false;
  std::string backend;
  int32_t rank = 0;
  int32_t world_size = 1;
  int64_t base_time_ns = 0;
  std::string trace_name;
  SourceFormat source_format = SourceFormat::kUnspecified;
  std::string source;  // file path or caller-given name, for messages
  friend bool operator==(const TraceMetadata&, const TraceMetadata&) = default;
};

// Tolerated oddities, counted so nothing is dropped silently.
struct ReadCounters {
  int64_t unknown_category_events = 0;   // kept as EventKind::kOther
  int64_t unsupported_phase_events = 0;  // e.g. "B"/"E" pairs: not kept
  // Not kept as asked (ReaderLimits::keep_python_frames).
  int64_t python_frames_left_out = 0;
  friend bool operator==(const ReadCounters&, const ReadCounters&) = default;
};

// When the plain Python frames a reader left out ran
// (ReaderLimits::keep_python_frames): the one thing a profile reads of them,
// as host ops bounding a span that has no ProfilerStep (docs/semantics.md §2).
struct FrameExtent {
  int64_t first_start_ns = std::numeric_limits<int64_t>::max();
  int64_t last_end_ns = std::numeric_limits<int64_t>::min();
  bool empty() const { return first_start_ns > last_end_ns; }
  void Add(int64_t start_ns, int64_t end_ns) {
    first_start_ns = std::min(first_start_ns, start_ns);
    last_end_ns = std::max(last_end_ns, end_ns);
  }
  // Adds `other` moved by `shift_ns` (a span's time base, AppendShift),
  // saturating rather than overflowing on absurd times.
  void Add(const FrameExtent& other, int64_t shift_ns) {
    if (!other.empty())
      Add(SaturatingAdd(other.first_start_ns, shift_ns),
          SaturatingAdd(other.last_end_ns, shift_ns));
  }
  static int64_t SaturatingAdd(int64_t a, int64_t b) {
    int64_t sum;
    if (!__builtin_add_overflow(a, b, &sum)) return sum;
    return b > 0 ? std::numeric_limits<int64_t>::max()
                 : std::numeric_limits<int64_t>::min();
  }
  friend bool operator==(const FrameExtent&, const FrameExtent&) = default;
};

// One span: events, arguments, strings and metadata.
struct Trace {
  StringPool strings;
  EventTable events;
  ArgTable args;
  TraceMetadata metadata;
  ReadCounters counters;
  // Event index where each span (profiling window) begins; {0} for a single
  // file. Steps and GPU metrics are computed per span, so the gap between two
  // windows counts for nothing.
  std::vector<uint32_t> span_begin = {0};
  // Per span, as span_begin: the frames left out of it.
  std::vector<FrameExtent> left_out_frames = {FrameExtent{}};

  // Makes this an empty Trace whose event and argument columns keep their
  // capacity, for a reader that reads one span after another into it.
  void ClearKeepingCapacity();

  // The integer/double/string value of `key` on event `i`, if present.
  std::optional<int64_t> IntArg(size_t i, ArgKey key) const;
  std::optional<double> DoubleArg(size_t i, ArgKey key) const;
  std::optional<StringId> StringArg(size_t i, ArgKey key) const;
};

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_TRACE_H_
