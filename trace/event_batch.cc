#include "trace/event_batch.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <google/protobuf/repeated_field.h>
#include <simdjson.h>

#include "base/log.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "trace/event_kind.h"
#include "trace/string_pool.h"

namespace profdiff::trace {
namespace {

using google::protobuf::RepeatedField;

// trace::EventKind/EventPhase/ArgKey mirror the proto enums value for value
// (event_kind.h), so conversion is a cast; these tables fail the build if
// either side is renumbered.
template <typename A, typename B, size_t N>
constexpr bool SameNumbering(const std::pair<A, B> (&pairs)[N]) {
  for (size_t i = 0; i < N; ++i) {
    if (static_cast<int>(pairs[i].first) != static_cast<int>(pairs[i].second) ||
        static_cast<int>(pairs[i].first) != static_cast<int>(i)) {
      return false;
    }
  }
  return true;
}

constexpr std::pair<EventKind, v1::EventKind> kKinds[] = {
    {EventKind::kUnspecified, v1::EVENT_KIND_UNSPECIFIED},
    {EventKind::kCpuOp, v1::EVENT_KIND_CPU_OP},
    {EventKind::kUserAnnotation, v1::EVENT_KIND_USER_ANNOTATION},
    {EventKind::kPythonFunction, v1::EVENT_KIND_PYTHON_FUNCTION},
    {EventKind::kModule, v1::EVENT_KIND_MODULE},
    {EventKind::kProfilerStep, v1::EVENT_KIND_PROFILER_STEP},
    {EventKind::kRuntime, v1::EVENT_KIND_RUNTIME},
    {EventKind::kDriver, v1::EVENT_KIND_DRIVER},
    {EventKind::kSync, v1::EVENT_KIND_SYNC},
    {EventKind::kKernel, v1::EVENT_KIND_KERNEL},
    {EventKind::kMemcpy, v1::EVENT_KIND_MEMCPY},
    {EventKind::kMemset, v1::EVENT_KIND_MEMSET},
    {EventKind::kGpuUserAnnotation, v1::EVENT_KIND_GPU_USER_ANNOTATION},
    {EventKind::kMemory, v1::EVENT_KIND_MEMORY},
    {EventKind::kOverhead, v1::EVENT_KIND_OVERHEAD},
    {EventKind::kTraceSpan, v1::EVENT_KIND_TRACE_SPAN},
    {EventKind::kFlow, v1::EVENT_KIND_FLOW},
    {EventKind::kInstant, v1::EVENT_KIND_INSTANT},
    {EventKind::kCounter, v1::EVENT_KIND_COUNTER},
    {EventKind::kMetadata, v1::EVENT_KIND_METADATA},
    {EventKind::kOther, v1::EVENT_KIND_OTHER},
};
static_assert(SameNumbering(kKinds) && std::size(kKinds) == kEventKindCount &&
              v1::EventKind_ARRAYSIZE == kEventKindCount);

constexpr std::pair<EventPhase, v1::EventPhase> kPhases[] = {
    {EventPhase::kUnspecified, v1::EVENT_PHASE_UNSPECIFIED},
    {EventPhase::kComplete, v1::EVENT_PHASE_COMPLETE},
    {EventPhase::kInstant, v1::EVENT_PHASE_INSTANT},
    {EventPhase::kFlowStart, v1::EVENT_PHASE_FLOW_START},
    {EventPhase::kFlowStep, v1::EVENT_PHASE_FLOW_STEP},
    {EventPhase::kFlowEnd, v1::EVENT_PHASE_FLOW_END},
    {EventPhase::kCounter, v1::EVENT_PHASE_COUNTER},
    {EventPhase::kMetadata, v1::EVENT_PHASE_METADATA},
};
constexpr int kEventPhaseCount = static_cast<int>(std::size(kPhases));
static_assert(SameNumbering(kPhases) &&
              v1::EventPhase_ARRAYSIZE == kEventPhaseCount);

constexpr std::pair<ArgKey, v1::ArgKey> kArgKeys[] = {
    {ArgKey::kUnspecified, v1::ARG_KEY_UNSPECIFIED},
    {ArgKey::kGrid, v1::ARG_KEY_GRID},
    {ArgKey::kBlock, v1::ARG_KEY_BLOCK},
    {ArgKey::kRegistersPerThread, v1::ARG_KEY_REGISTERS_PER_THREAD},
    {ArgKey::kSharedMemoryBytes, v1::ARG_KEY_SHARED_MEMORY_BYTES},
    {ArgKey::kBlocksPerSm, v1::ARG_KEY_BLOCKS_PER_SM},
    {ArgKey::kWarpsPerSm, v1::ARG_KEY_WARPS_PER_SM},
    {ArgKey::kAchievedOccupancyPct, v1::ARG_KEY_ACHIEVED_OCCUPANCY_PCT},
    {ArgKey::kBytes, v1::ARG_KEY_BYTES},
    {ArgKey::kBandwidthGbps, v1::ARG_KEY_BANDWIDTH_GBPS},
    {ArgKey::kTotalAllocatedBytes, v1::ARG_KEY_TOTAL_ALLOCATED_BYTES},
    {ArgKey::kTotalReservedBytes, v1::ARG_KEY_TOTAL_RESERVED_BYTES},
    {ArgKey::kDeviceType, v1::ARG_KEY_DEVICE_TYPE},
    {ArgKey::kDeviceId, v1::ARG_KEY_DEVICE_ID},
    {ArgKey::kCollectiveName, v1::ARG_KEY_COLLECTIVE_NAME},
    {ArgKey::kDtype, v1::ARG_KEY_DTYPE},
    {ArgKey::kInMsgNelems, v1::ARG_KEY_IN_MSG_NELEMS},
    {ArgKey::kOutMsgNelems, v1::ARG_KEY_OUT_MSG_NELEMS},
    {ArgKey::kGroupSize, v1::ARG_KEY_GROUP_SIZE},
    {ArgKey::kProcessGroupName, v1::ARG_KEY_PROCESS_GROUP_NAME},
    {ArgKey::kMetadataName, v1::ARG_KEY_METADATA_NAME},
    {ArgKey::kMetadataLabels, v1::ARG_KEY_METADATA_LABELS},
    {ArgKey::kSortIndex, v1::ARG_KEY_SORT_INDEX},
    {ArgKey::kDevice, v1::ARG_KEY_DEVICE},
    {ArgKey::kStream, v1::ARG_KEY_STREAM},
    {ArgKey::kInputTypes, v1::ARG_KEY_INPUT_TYPES},
    {ArgKey::kPythonModuleId, v1::ARG_KEY_PYTHON_MODULE_ID},
    {ArgKey::kFlowBindingEnclosing, v1::ARG_KEY_FLOW_BINDING_ENCLOSING},
    {ArgKey::kProcessGroupRanks, v1::ARG_KEY_PROCESS_GROUP_RANKS},
    {ArgKey::kAddr, v1::ARG_KEY_ADDR},
    {ArgKey::kSelfCpuMemoryUsage, v1::ARG_KEY_SELF_CPU_MEMORY_USAGE},
};
static_assert(SameNumbering(kArgKeys) && std::size(kArgKeys) == kArgKeyCount &&
              v1::ArgKey_ARRAYSIZE == kArgKeyCount);

// The trace's row counts and ids are uint32 (arg_begin, StringId, span_begin).
constexpr uint64_t kMaxTraceRows = std::numeric_limits<uint32_t>::max();

constexpr std::string_view kPerEvent = "event";
constexpr std::string_view kPerArg = "argument row";

// Sizes `column` to `n` entries (reusing its capacity) and returns them for raw
// writes.
template <typename T>
T* ResizeColumn(RepeatedField<T>* column, size_t n) {
  column->Resize(static_cast<int>(n), T{});
  return column->mutable_data();
}

// Grows `column` by `n` entries and returns the new ones for raw writes.
// resize() grows geometrically, so appending many batches stays linear (an
// exact reserve() per batch would copy the whole column every time).
template <typename T>
T* GrowColumn(std::vector<T>& column, size_t n) {
  const size_t old_size = column.size();
  column.resize(old_size + n);
  return column.data() + old_size;
}

// Negative pid/tid/flow ids name strings: the reader stores "pid": "Spans" as
// -1 - StringId (span_merge.cc keeps them pointing at the same text). On the
// wire they are -1 - the index in the batch's table; a negative value past the
// table is an ordinary number and passes as is.
bool NamesString(int64_t value, size_t table_size) {
  return value < 0 && static_cast<uint64_t>(-1 - value) < table_size;
}

// Maps the trace's StringIds to indices of one batch's string table, adding a
// string to the table when the batch first uses it (strings[0] = "" is added up
// front). The map is a flat vector indexed by StringId, allocated zero-filled
// per batch: one load per lookup instead of a hash probe, and no state kept
// between calls. It costs O(pool size) per batch: measured 6 µs for a
// 100k-string pool (400 KB), about 1% of encoding a 16k-event batch
// (~540 µs at 30M events/s, bench/event_batch_bench.cc); only tiny batches
// against a huge pool would feel it. 0 means "not in the table yet" (id 0 is ""
// and is index 0 by definition).
class BatchStringTable {
 public:
  BatchStringTable(const StringPool& pool, v1::EventBatch& batch)
      : pool_(pool), batch_(batch), index_of_(pool.size(), 0) {
    batch_.add_strings();  // strings[0] = ""; Add reuses a cleared string after
                           // Clear()
  }

  uint32_t IndexOf(StringId id) {
    uint32_t& index = index_of_[id.value];
    if (index == 0 && id.value != 0) {
      index = static_cast<uint32_t>(batch_.strings_size());
      batch_.add_strings()->assign(pool_.Get(id));
    }
    return index;
  }

  int64_t IdOrString(int64_t value) {
    if (!NamesString(value, pool_.size())) return value;
    const StringId id{static_cast<uint32_t>(-1 - value)};
    return -1 - static_cast<int64_t>(IndexOf(id));
  }

 private:
  const StringPool& pool_;
  v1::EventBatch& batch_;
  std::vector<uint32_t> index_of_;
};

void EncodeStringColumn(const std::vector<StringId>& column, size_t begin,
                        size_t n, BatchStringTable& table,
                        RepeatedField<uint32_t>* out) {
  uint32_t* values = ResizeColumn(out, n);
  for (size_t i = 0; i < n; ++i) values[i] = table.IndexOf(column[begin + i]);
}

void EncodeIdColumn(const std::vector<int64_t>& column, size_t begin, size_t n,
                    BatchStringTable& table, RepeatedField<int64_t>* out) {
  int64_t* values = ResizeColumn(out, n);
  for (size_t i = 0; i < n; ++i)
    values[i] = table.IdOrString(column[begin + i]);
}

void EncodeIntColumn(const std::vector<int64_t>& column, size_t begin, size_t n,
                     RepeatedField<int64_t>* out) {
  std::copy_n(column.begin() + static_cast<ptrdiff_t>(begin), n,
              ResizeColumn(out, n));
}

// --- Validation
// -----------------------------------------------------------------------------

absl::Status OverLimit(std::string_view what, uint64_t found, uint64_t limit,
                       std::string_view limit_name) {
  return absl::ResourceExhaustedError(
      base::StrCat("event batch: ", found, " ", what, ", over the limit of ",
                   limit, " (", limit_name, ")"));
}

template <typename Column>
absl::Status CheckLength(std::string_view column, const Column& values,
                         int expected, std::string_view per) {
  if (values.size() == expected) return absl::OkStatus();
  return absl::InvalidArgumentError(
      base::StrCat("event batch: column \"", column, "\" has ", values.size(),
                   " entries, expected ", expected, " (one per ", per, ")"));
}

// Indices must be < `table_size`; 0 ("none") is always allowed. A max over the
// column first, so a valid column costs one vectorisable pass.
absl::Status CheckStringIndices(std::string_view column,
                                const RepeatedField<uint32_t>& values,
                                size_t table_size) {
  uint32_t max_index = 0;
  for (uint32_t v : values) max_index = std::max(max_index, v);
  if (max_index == 0 || max_index < table_size) return absl::OkStatus();
  for (int i = 0; i < values.size(); ++i) {
    if (values[i] != 0 && values[i] >= table_size) {
      return absl::InvalidArgumentError(base::StrCat(
          "event batch: ", column, "[", i, "] = ", values[i],
          " is outside the string table (", table_size, " strings)"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckEnum(std::string_view column,
                       const RepeatedField<uint32_t>& values, int count,
                       std::string_view enum_name) {
  uint32_t max_value = 0;
  for (uint32_t v : values) max_value = std::max(max_value, v);
  if (max_value < static_cast<uint32_t>(count)) return absl::OkStatus();
  for (int i = 0; i < values.size(); ++i) {
    if (values[i] >= static_cast<uint32_t>(count)) {
      return absl::InvalidArgumentError(base::StrCat(
          "event batch: ", column, "[", i, "] = ", values[i],
          " is not a known ", enum_name, " (expected 0 to ", count - 1, ")"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckDurations(const RepeatedField<int64_t>& values) {
  int64_t min_value = 0;
  for (int64_t v : values) min_value = std::min(min_value, v);
  if (min_value >= 0) return absl::OkStatus();
  for (int i = 0; i < values.size(); ++i) {
    if (values[i] < 0) {
      return absl::InvalidArgumentError(
          base::StrCat("event batch: duration_ns[", i, "] = ", values[i],
                       ", expected a non-negative duration"));
    }
  }
  return absl::OkStatus();
}

// Argument rows are grouped by event in event order, as ArgTable keeps them
// (trace.h).
absl::Status CheckArgEvents(const RepeatedField<uint32_t>& arg_event,
                            int events) {
  uint32_t previous = 0;
  for (int i = 0; i < arg_event.size(); ++i) {
    const uint32_t event = arg_event[i];
    if (event >= static_cast<uint32_t>(events)) {
      return absl::InvalidArgumentError(
          base::StrCat("event batch: arg_event[", i, "] = ", event,
                       " is outside the batch (", events, " events)"));
    }
    if (event < previous) {
      return absl::InvalidArgumentError(base::StrCat(
          "event batch: arg_event[", i, "] = ", event, " is below arg_event[",
          i - 1, "] = ", previous, ", expected argument rows in event order"));
    }
    previous = event;
  }
  return absl::OkStatus();
}

absl::Status CheckStrings(const v1::EventBatch& batch,
                          const EventBatchLimits& limits) {
  for (int k = 0; k < batch.strings_size(); ++k) {
    const std::string& text = batch.strings(k);
    if (text.size() > limits.max_string_bytes) {
      return OverLimit(base::StrCat("bytes in strings[", k, "]"), text.size(),
                       limits.max_string_bytes, "max_string_bytes");
    }
    if (!simdjson::validate_utf8(text.data(), text.size())) {
      return absl::InvalidArgumentError(base::StrCat(
          "event batch: strings[", k, "] is not valid UTF-8 (bytes ",
          base::QuoteBytes(text), ")"));
    }
  }
  if (batch.strings_size() > 0 && !batch.strings(0).empty()) {
    return absl::InvalidArgumentError(base::StrCat(
        "event batch: strings[0] = ", base::QuoteBytes(batch.strings(0)),
        ", expected \"\" (index 0 means none)"));
  }
  return absl::OkStatus();
}

// --- Decoding
// -------------------------------------------------------------------------------

void AppendStringColumn(const RepeatedField<uint32_t>& values,
                        const std::vector<StringId>& remap,
                        std::vector<StringId>& column) {
  StringId* out = GrowColumn(column, values.size());
  for (uint32_t v : values) *out++ = remap[v];
}

void AppendIdColumn(const RepeatedField<int64_t>& values,
                    const std::vector<StringId>& remap,
                    std::vector<int64_t>& column) {
  int64_t* out = GrowColumn(column, values.size());
  for (int64_t v : values) {
    *out++ = NamesString(v, remap.size())
                 ? -1 - static_cast<int64_t>(
                            remap[static_cast<size_t>(-1 - v)].value)
                 : v;
  }
}

void AppendIntColumn(const RepeatedField<int64_t>& values,
                     std::vector<int64_t>& column) {
  std::copy(values.begin(), values.end(), GrowColumn(column, values.size()));
}

template <typename Enum>
void AppendEnumColumn(const RepeatedField<uint32_t>& values,
                      std::vector<Enum>& column) {
  Enum* out = GrowColumn(column, values.size());
  for (uint32_t v : values)
    *out++ = static_cast<Enum>(v);  // checked < the enum's count
}

}  // namespace

void EncodeEventBatch(const Trace& trace, size_t begin, size_t end,
                      v1::EventBatch& batch) {
  const EventTable& t = trace.events;
  PD_CHECK(begin <= end && end <= t.size(),
           "event range [%d, %d) outside %d events", begin, end, t.size());
  batch.Clear();
  const size_t n = end - begin;
  BatchStringTable table(trace.strings, batch);

  uint32_t* kind = ResizeColumn(batch.mutable_kind(), n);
  for (size_t i = 0; i < n; ++i)
    kind[i] = static_cast<uint32_t>(t.kind[begin + i]);
  uint32_t* phase = ResizeColumn(batch.mutable_phase(), n);
  for (size_t i = 0; i < n; ++i)
    phase[i] = static_cast<uint32_t>(t.phase[begin + i]);
  // Deltas in uint64: wrapping subtraction is defined, and decoding wraps back
  // exactly.
  int64_t* start_delta = ResizeColumn(batch.mutable_start_delta_ns(), n);
  uint64_t previous_start = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t start = static_cast<uint64_t>(t.start_ns[begin + i]);
    start_delta[i] = static_cast<int64_t>(start - previous_start);
    previous_start = start;
  }
  // The string table takes strings in column order: name, category,
  // input_shapes, ids, args.
  EncodeStringColumn(t.name, begin, n, table, batch.mutable_name());
  EncodeStringColumn(t.category, begin, n, table, batch.mutable_category());
  EncodeStringColumn(t.input_shapes, begin, n, table,
                     batch.mutable_input_shapes());
  EncodeIntColumn(t.duration_ns, begin, n, batch.mutable_duration_ns());
  EncodeIdColumn(t.pid, begin, n, table, batch.mutable_device());
  EncodeIdColumn(t.tid, begin, n, table, batch.mutable_thread());
  EncodeIntColumn(t.correlation, begin, n, batch.mutable_correlation());
  EncodeIntColumn(t.external_id, begin, n, batch.mutable_external_id());
  EncodeIntColumn(t.sequence_number, begin, n, batch.mutable_sequence_number());
  EncodeIntColumn(t.forward_thread_id, begin, n,
                  batch.mutable_forward_thread_id());
  EncodeIntColumn(t.python_id, begin, n, batch.mutable_python_id());
  EncodeIntColumn(t.python_parent_id, begin, n,
                  batch.mutable_python_parent_id());
  EncodeIdColumn(t.flow_id, begin, n, table, batch.mutable_flow_id());
  if (n == 0) return;  // a fresh Trace has no arg_begin entry to read

  const ArgTable& a = trace.args;
  const uint32_t first_arg = t.arg_begin[begin];
  const size_t rows = t.arg_begin[end] - first_arg;
  uint32_t* arg_event = ResizeColumn(batch.mutable_arg_event(), rows);
  for (size_t i = 0; i < n; ++i) {
    for (uint32_t r = t.arg_begin[begin + i]; r < t.arg_begin[begin + i + 1];
         ++r) {
      arg_event[r - first_arg] = static_cast<uint32_t>(i);
    }
  }
  uint32_t* arg_key = ResizeColumn(batch.mutable_arg_key(), rows);
  for (size_t r = 0; r < rows; ++r)
    arg_key[r] = static_cast<uint32_t>(a.key[first_arg + r]);
  // All three value columns have a row per argument: the reader leaves the
  // unused ones 0.
  EncodeIntColumn(a.int_value, first_arg, rows, batch.mutable_arg_int());
  std::copy_n(a.double_value.begin() + first_arg, rows,
              ResizeColumn(batch.mutable_arg_double(), rows));
  EncodeStringColumn(a.string_value, first_arg, rows, table,
                     batch.mutable_arg_string());
}

absl::StatusOr<size_t> EncodeEventBatchWithin(const Trace& trace, size_t begin,
                                              size_t max_events,
                                              size_t max_bytes,
                                              v1::EventBatch& batch) {
  PD_CHECK(begin <= trace.events.size(), "begin %d outside %d events", begin,
           trace.events.size());
  size_t count = std::min(max_events, trace.events.size() - begin);
  while (true) {
    EncodeEventBatch(trace, begin, begin + count, batch);
    const size_t bytes = batch.ByteSizeLong();
    if (bytes <= max_bytes) return begin + count;
    if (count == 0) {
      return absl::ResourceExhaustedError(base::StrCat(
          "event batch: an empty batch encodes to ", bytes,
          " bytes, over the limit of ", max_bytes, " bytes (max_bytes)"));
    }
    if (count == 1) {
      return absl::ResourceExhaustedError(base::StrCat(
          "event batch: event ", begin, " alone encodes to ", bytes,
          " bytes, over the limit of ", max_bytes, " bytes (max_bytes)"));
    }
    count /= 2;
  }
}

absl::Status ValidateEventBatch(const v1::EventBatch& batch,
                                const EventBatchLimits& limits) {
  const int n = batch.kind_size();
  const int rows = batch.arg_event_size();
  if (static_cast<uint64_t>(n) > limits.max_events) {
    return OverLimit("events", n, limits.max_events, "max_events");
  }
  if (static_cast<uint64_t>(rows) > limits.max_args) {
    return OverLimit("argument rows", rows, limits.max_args, "max_args");
  }
  if (static_cast<uint64_t>(batch.strings_size()) > limits.max_strings) {
    return OverLimit("strings", batch.strings_size(), limits.max_strings,
                     "max_strings");
  }
  PD_RETURN_IF_ERROR(CheckLength("name", batch.name(), n, kPerEvent));
  PD_RETURN_IF_ERROR(
      CheckLength("start_delta_ns", batch.start_delta_ns(), n, kPerEvent));
  PD_RETURN_IF_ERROR(
      CheckLength("duration_ns", batch.duration_ns(), n, kPerEvent));
  PD_RETURN_IF_ERROR(CheckLength("device", batch.device(), n, kPerEvent));
  PD_RETURN_IF_ERROR(CheckLength("thread", batch.thread(), n, kPerEvent));
  PD_RETURN_IF_ERROR(
      CheckLength("correlation", batch.correlation(), n, kPerEvent));
  PD_RETURN_IF_ERROR(
      CheckLength("external_id", batch.external_id(), n, kPerEvent));
  PD_RETURN_IF_ERROR(CheckLength("phase", batch.phase(), n, kPerEvent));
  PD_RETURN_IF_ERROR(CheckLength("category", batch.category(), n, kPerEvent));
  PD_RETURN_IF_ERROR(
      CheckLength("sequence_number", batch.sequence_number(), n, kPerEvent));
  PD_RETURN_IF_ERROR(CheckLength("forward_thread_id", batch.forward_thread_id(),
                                 n, kPerEvent));
  PD_RETURN_IF_ERROR(
      CheckLength("input_shapes", batch.input_shapes(), n, kPerEvent));
  PD_RETURN_IF_ERROR(CheckLength("python_id", batch.python_id(), n, kPerEvent));
  PD_RETURN_IF_ERROR(
      CheckLength("python_parent_id", batch.python_parent_id(), n, kPerEvent));
  PD_RETURN_IF_ERROR(CheckLength("flow_id", batch.flow_id(), n, kPerEvent));
  PD_RETURN_IF_ERROR(CheckLength("arg_key", batch.arg_key(), rows, kPerArg));
  PD_RETURN_IF_ERROR(CheckLength("arg_int", batch.arg_int(), rows, kPerArg));
  PD_RETURN_IF_ERROR(
      CheckLength("arg_double", batch.arg_double(), rows, kPerArg));
  PD_RETURN_IF_ERROR(
      CheckLength("arg_string", batch.arg_string(), rows, kPerArg));

  PD_RETURN_IF_ERROR(
      CheckEnum("kind", batch.kind(), kEventKindCount, "EventKind"));
  PD_RETURN_IF_ERROR(
      CheckEnum("phase", batch.phase(), kEventPhaseCount, "EventPhase"));
  PD_RETURN_IF_ERROR(
      CheckEnum("arg_key", batch.arg_key(), kArgKeyCount, "ArgKey"));
  PD_RETURN_IF_ERROR(CheckDurations(batch.duration_ns()));
  PD_RETURN_IF_ERROR(CheckArgEvents(batch.arg_event(), n));
  const size_t table_size = static_cast<size_t>(batch.strings_size());
  PD_RETURN_IF_ERROR(CheckStringIndices("name", batch.name(), table_size));
  PD_RETURN_IF_ERROR(
      CheckStringIndices("category", batch.category(), table_size));
  PD_RETURN_IF_ERROR(
      CheckStringIndices("input_shapes", batch.input_shapes(), table_size));
  PD_RETURN_IF_ERROR(
      CheckStringIndices("arg_string", batch.arg_string(), table_size));
  return CheckStrings(batch, limits);
}

absl::Status AppendEventBatch(const v1::EventBatch& batch,
                              const EventBatchLimits& limits, Trace& trace) {
  PD_RETURN_IF_ERROR(ValidateEventBatch(batch, limits));
  EventTable& t = trace.events;
  const size_t n = static_cast<size_t>(batch.kind_size());
  const size_t rows = static_cast<size_t>(batch.arg_event_size());
  if (t.size() + n > kMaxTraceRows) {
    return OverLimit("events in the trace after this batch", t.size() + n,
                     kMaxTraceRows, "uint32 event index");
  }
  if (trace.args.size() + rows > kMaxTraceRows) {
    return OverLimit("argument rows in the trace after this batch",
                     trace.args.size() + rows, kMaxTraceRows,
                     "uint32 arg_begin");
  }
  if (trace.strings.size() + static_cast<size_t>(batch.strings_size()) >
      kMaxTraceRows) {
    return OverLimit(
        "strings in the trace after this batch",
        trace.strings.size() + static_cast<size_t>(batch.strings_size()),
        kMaxTraceRows, "uint32 StringId");
  }
  // Nothing below can fail: the trace changes only once the batch is known to
  // be good.

  // remap[0] is the empty string whether or not the batch spelled strings[0]
  // out.
  std::vector<StringId> remap(
      std::max(static_cast<size_t>(batch.strings_size()), size_t{1}));
  for (int k = 1; k < batch.strings_size(); ++k) {
    remap[static_cast<size_t>(k)] = trace.strings.Intern(batch.strings(k));
  }
  if (t.arg_begin.empty())
    t.arg_begin.push_back(static_cast<uint32_t>(trace.args.size()));
  PD_CHECK(t.arg_begin.size() == t.size() + 1,
           "arg_begin has %d entries for %d events", t.arg_begin.size(),
           t.size());

  AppendEnumColumn(batch.kind(), t.kind);
  AppendEnumColumn(batch.phase(), t.phase);
  AppendStringColumn(batch.name(), remap, t.name);
  AppendStringColumn(batch.category(), remap, t.category);
  int64_t* start = GrowColumn(t.start_ns, n);
  uint64_t previous_start = 0;
  for (int64_t delta : batch.start_delta_ns()) {
    previous_start += static_cast<uint64_t>(delta);
    *start++ = static_cast<int64_t>(previous_start);
  }
  AppendIntColumn(batch.duration_ns(), t.duration_ns);
  AppendIdColumn(batch.device(), remap, t.pid);
  AppendIdColumn(batch.thread(), remap, t.tid);
  AppendIntColumn(batch.correlation(), t.correlation);
  AppendIntColumn(batch.external_id(), t.external_id);
  AppendIntColumn(batch.sequence_number(), t.sequence_number);
  AppendIntColumn(batch.forward_thread_id(), t.forward_thread_id);
  AppendIntColumn(batch.python_id(), t.python_id);
  AppendIntColumn(batch.python_parent_id(), t.python_parent_id);
  AppendIdColumn(batch.flow_id(), remap, t.flow_id);
  AppendStringColumn(batch.input_shapes(), remap, t.input_shapes);

  ArgTable& a = trace.args;
  const uint32_t first_arg = static_cast<uint32_t>(a.size());
  uint32_t* arg_end = GrowColumn(t.arg_begin, n);
  uint32_t row = 0;
  for (uint32_t i = 0; i < n; ++i) {
    // Rows are grouped by event in order (validated), so event i's rows come
    // next.
    while (row < rows && batch.arg_event(static_cast<int>(row)) == i) ++row;
    arg_end[i] = first_arg + row;
  }
  AppendEnumColumn(batch.arg_key(), a.key);
  AppendIntColumn(batch.arg_int(), a.int_value);
  std::copy(batch.arg_double().begin(), batch.arg_double().end(),
            GrowColumn(a.double_value, rows));
  AppendStringColumn(batch.arg_string(), remap, a.string_value);
  return absl::OkStatus();
}

}  // namespace profdiff::trace
