#include "trace/event_batch.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/trace_comparison.h"
#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::trace {
namespace {

using ::profdiff::test_support::ExpectSameEvents;
using ::profdiff::test_support::IdText;
using ::testing::HasSubstr;

// Kernels, a memcpy and a memory event with typed args, a flow pair with "bp":
// "e", metadata with name/labels/sort_index, and a span whose pid and tid are
// strings ("Spans").
constexpr std::string_view kSmallTrace = R"json({
  "baseTimeNanoseconds": 1700000000000000000,
  "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 11, "ts": 100.125, "dur": 20.5,
     "args": {"External id": 7, "Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"],
              "Sequence number": 5, "Fwd thread id": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 105, "dur": 3,
     "args": {"External id": 7, "correlation": 99}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 110, "dur": 9.001,
     "args": {"correlation": 99, "device": 0, "stream": 7, "grid": [1, 2, 1], "block": [128, 1, 1],
              "blocks per SM": 0.25, "warps per SM": 1.5, "est. achieved occupancy %": 12,
              "registers per thread": 32, "shared memory": 4096}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7,
     "ts": 120, "dur": 2, "args": {"bytes": 4096, "memory bandwidth (GB/s)": 2.048, "correlation": 100}},
    {"ph": "s", "id": 99, "pid": 10, "tid": 11, "ts": 105, "cat": "ac2g", "name": "ac2g"},
    {"ph": "f", "id": 99, "pid": 0, "tid": 7, "ts": 110, "cat": "ac2g", "name": "ac2g", "bp": "e"},
    {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 10, "tid": 11, "ts": 101, "s": "t",
     "args": {"Total Reserved": 2097152, "Total Allocated": 512, "bytes": 512, "Device Type": 1,
              "Device Id": 0}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 10, "tid": 11, "ts": 99, "dur": 40},
    {"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 10, "tid": 11,
     "ts": 99.5, "dur": 30, "args": {"Python id": 12, "Python parent id": 3, "Python module id": 2}},
    {"ph": "X", "cat": "nccl:all_reduce", "name": "record_param_comms", "pid": 10, "tid": 11, "ts": 130,
     "dur": 5, "args": {"Collective name": "allreduce", "dtype": "Float", "In msg nelems": 1024,
                        "Out msg nelems": 1024, "Group size": 8, "Process Group Name": "0"}},
    {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler",
     "ts": 90, "dur": 60},
    {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}},
    {"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "NVIDIA H100"}},
    {"name": "process_sort_index", "ph": "M", "pid": 0, "tid": 0, "args": {"sort_index": 5000000}},
    {"name": "thread_name", "ph": "M", "pid": 10, "tid": 11, "args": {"name": "python"}}
  ]})json";

Trace MustRead(std::string_view json) {
  absl::StatusOr<Trace> trace = ReadKinetoTrace(json, "test.json");
  EXPECT_TRUE(trace.ok()) << trace.status();
  return trace.ok() ? std::move(*trace) : Trace{};
}

// Encodes `trace` in batches of `events_per_batch`, sends each through the wire
// format, and appends them to a fresh Trace.
Trace RoundTrip(const Trace& trace, size_t events_per_batch) {
  Trace out;
  v1::EventBatch batch;  // reused, as the agent does
  v1::EventBatch received;
  for (size_t begin = 0; begin < trace.events.size();
       begin += events_per_batch) {
    const size_t end = std::min(begin + events_per_batch, trace.events.size());
    EncodeEventBatch(trace, begin, end, batch);
    EXPECT_TRUE(received.ParseFromString(batch.SerializeAsString()));
    const absl::Status status =
        AppendEventBatch(received, EventBatchLimits{}, out);
    EXPECT_TRUE(status.ok())
        << "events [" << begin << ", " << end << "): " << status;
  }
  return out;
}

TEST(EventBatchTest, RoundTripsSmallTraceInBatchesOfThree) {
  const Trace trace = MustRead(kSmallTrace);
  ASSERT_EQ(trace.events.size(), 15u);
  ASSERT_GT(trace.args.size(), 20u);  // the kernel alone has 9 typed arguments
  const Trace out = RoundTrip(trace, 3);
  ExpectSameEvents(trace, out);
  // The span's string pid and tid kept their text through the batch's string
  // table.
  EXPECT_EQ(IdText(out, out.events.pid[10]), "string Spans");
  EXPECT_EQ(IdText(out, out.events.tid[10]), "string PyTorch Profiler");
}

TEST(EventBatchTest, EncodesStartsAsDeltasFromTheBatchStart) {
  const Trace trace = MustRead(kSmallTrace);
  v1::EventBatch batch;
  EncodeEventBatch(trace, 0, 3, batch);
  // ts 100.125, 105, 110 us = 100125, 105000, 110000 ns: deltas 100125 (from
  // 0), 4875, 5000.
  EXPECT_THAT(batch.start_delta_ns(), testing::ElementsAre(100125, 4875, 5000));
  // Each batch starts again from 0: events 3..5 have ts 120, 105, 110 us:
  // 120000, -15000, 5000.
  EncodeEventBatch(trace, 3, 6, batch);
  EXPECT_THAT(batch.start_delta_ns(),
              testing::ElementsAre(120000, -15000, 5000));
}

TEST(EventBatchTest, StringTableHoldsOnlyTheBatchStringsInFirstUseOrder) {
  const Trace trace = MustRead(kSmallTrace);
  v1::EventBatch batch;
  EncodeEventBatch(trace, 4, 6,
                   batch);  // the "s" and "f" flow events: name and cat "ac2g"
  EXPECT_THAT(batch.strings(), testing::ElementsAre("", "ac2g"));
  EXPECT_THAT(batch.name(), testing::ElementsAre(1, 1));
  EXPECT_THAT(batch.category(), testing::ElementsAre(1, 1));
  EXPECT_THAT(batch.flow_id(), testing::ElementsAre(99, 99));
  // The "f" event's "bp": "e" is its one argument row, an int 1.
  EXPECT_THAT(batch.arg_event(), testing::ElementsAre(1));
  EXPECT_THAT(batch.arg_key(),
              testing::ElementsAre(v1::ARG_KEY_FLOW_BINDING_ENCLOSING));
  EXPECT_THAT(batch.arg_int(), testing::ElementsAre(1));
  EXPECT_THAT(batch.arg_double(), testing::ElementsAre(0.0));
  EXPECT_THAT(batch.arg_string(), testing::ElementsAre(0));
}

TEST(EventBatchTest, RoundTripsRealTraceInChunksOfThousand) {
  const std::filesystem::path path =
      profdiff::test_support::TracesDir() /
      "param/dlrm_kineto/worker0_step_12.1694128201545.pt.trace.json.gz";
  if (!std::filesystem::exists(path)) {
    GTEST_SKIP() << "trace not found: " << path << " (set PROFDIFF_TRACES)";
  }
  KinetoReader reader;
  absl::StatusOr<Trace> trace = reader.ReadFile(path.string());
  ASSERT_TRUE(trace.ok()) << trace.status();
  ASSERT_GT(trace->events.size(), 1000u);
  ExpectSameEvents(*trace, RoundTrip(*trace, 1000));
}

// A Trace of `count` identical events built by hand: kind cpu_op, phase X, name
// "ab", every other column 0 except sequence number and python ids (-1 = none).
Trace UniformTrace(size_t count, std::string_view name) {
  Trace trace;
  const StringId name_id = trace.strings.Intern(name);
  EventTable& t = trace.events;
  t.arg_begin.push_back(0);
  for (size_t i = 0; i < count; ++i) {
    t.kind.push_back(EventKind::kCpuOp);
    t.phase.push_back(EventPhase::kComplete);
    t.name.push_back(name_id);
    t.category.push_back(StringId{});
    t.start_ns.push_back(0);
    t.duration_ns.push_back(0);
    t.pid.push_back(0);
    t.tid.push_back(0);
    t.correlation.push_back(kNoId);
    t.external_id.push_back(kNoId);
    t.sequence_number.push_back(kNoSequence);
    t.forward_thread_id.push_back(kNoId);
    t.python_id.push_back(kNoSequence);
    t.python_parent_id.push_back(kNoSequence);
    t.flow_id.push_back(kNoId);
    t.input_shapes.push_back(StringId{});
    t.arg_begin.push_back(0);
  }
  return trace;
}

// Sizes of UniformTrace batches, by hand. Every value is a one-byte varint (0,
// 1, or -1 as zigzag 1). A packed column of k values: tag + length + k bytes;
// fields 1-15 have a one-byte tag (15 columns), flow_id (16) a two-byte tag.
// strings {"", "ab"}: two-byte tag (field 22) + length + text = 3 + 5 = 8. No
// argument columns.
//   1 event:  15 * 3 + 4 + 8 = 57
//   2 events: 15 * 4 + 5 + 8 = 73
//   4 events: 15 * 6 + 7 + 8 = 105
TEST(EventBatchTest, EncodedSizeMatchesHandCount) {
  const Trace trace = UniformTrace(4, "ab");
  v1::EventBatch batch;
  EncodeEventBatch(trace, 0, 1, batch);
  EXPECT_EQ(batch.ByteSizeLong(), 57u);
  EncodeEventBatch(trace, 0, 2, batch);
  EXPECT_EQ(batch.ByteSizeLong(), 73u);
  EncodeEventBatch(trace, 0, 4, batch);
  EXPECT_EQ(batch.ByteSizeLong(), 105u);
}

TEST(EventBatchTest, EncodeWithinHalvesUntilTheBatchFits) {
  const Trace trace = UniformTrace(4, "ab");
  v1::EventBatch batch;
  // 4 events = 105 bytes > 80; halved to 2 events = 73 bytes <= 80.
  absl::StatusOr<size_t> end = EncodeEventBatchWithin(trace, 0, 4, 80, batch);
  ASSERT_TRUE(end.ok()) << end.status();
  EXPECT_EQ(*end, 2u);
  EXPECT_EQ(batch.kind_size(), 2);
  EXPECT_LE(batch.ByteSizeLong(), 80u);
  // From event 3 only one event is left: 57 bytes.
  end = EncodeEventBatchWithin(trace, 3, 4, 80, batch);
  ASSERT_TRUE(end.ok()) << end.status();
  EXPECT_EQ(*end, 4u);
}

TEST(EventBatchTest, EncodeWithinIsDeterministic) {
  const Trace trace = MustRead(kSmallTrace);
  v1::EventBatch reused;
  std::vector<std::string> first;
  std::vector<size_t> first_ends;
  for (size_t begin = 0; begin < trace.events.size();) {
    absl::StatusOr<size_t> end =
        EncodeEventBatchWithin(trace, begin, 8, 400, reused);
    ASSERT_TRUE(end.ok()) << end.status();
    ASSERT_GT(*end, begin);
    EXPECT_LE(reused.ByteSizeLong(), 400u);
    first.push_back(reused.SerializeAsString());
    first_ends.push_back(*end);
    begin = *end;
  }
  // A restarted sender with a fresh batch cuts the same chunks, byte for byte.
  size_t k = 0;
  for (size_t begin = 0; begin < trace.events.size(); ++k) {
    v1::EventBatch fresh;
    absl::StatusOr<size_t> end =
        EncodeEventBatchWithin(trace, begin, 8, 400, fresh);
    ASSERT_TRUE(end.ok()) << end.status();
    ASSERT_LT(k, first.size());
    EXPECT_EQ(*end, first_ends[k]);
    EXPECT_EQ(fresh.SerializeAsString(), first[k]);
    begin = *end;
  }
  EXPECT_EQ(k, first.size());
}

TEST(EventBatchTest, SingleOversizedEventIsResourceExhausted) {
  const Trace trace = UniformTrace(2, "ab");
  v1::EventBatch batch;
  // One event alone is 57 bytes (EncodedSizeMatchesHandCount).
  absl::StatusOr<size_t> end = EncodeEventBatchWithin(trace, 0, 2, 56, batch);
  EXPECT_EQ(end.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(end.status().message(),
              HasSubstr("event 0 alone encodes to 57 bytes"));
  EXPECT_THAT(end.status().message(), HasSubstr("max_bytes"));
}

// A valid batch written by hand: 2 events, 3 argument rows (event 0: one, event
// 1: two), strings {"", "op", "k"}.
v1::EventBatch HandBatch() {
  v1::EventBatch b;
  b.add_strings("");
  b.add_strings("op");
  b.add_strings("k");
  for (int i = 0; i < 2; ++i) {
    b.add_kind(i == 0 ? v1::EVENT_KIND_CPU_OP : v1::EVENT_KIND_KERNEL);
    b.add_name(i == 0 ? 1 : 2);
    b.add_start_delta_ns(i == 0 ? 100 : 50);
    b.add_duration_ns(i == 0 ? 10 : 5);
    b.add_device(i == 0 ? 42 : 0);
    b.add_thread(i == 0 ? 43 : 7);
    b.add_correlation(i == 0 ? 0 : 9);
    b.add_external_id(3);
    b.add_phase(v1::EVENT_PHASE_COMPLETE);
    b.add_category(0);
    b.add_sequence_number(-1);
    b.add_forward_thread_id(0);
    b.add_input_shapes(0);
    b.add_python_id(-1);
    b.add_python_parent_id(-1);
    b.add_flow_id(0);
  }
  const struct {
    uint32_t event;
    v1::ArgKey key;
    int64_t int_value;
    double double_value;
    uint32_t string_value;
  } rows[] = {
      {0, v1::ARG_KEY_BYTES, 64, 0, 0},
      {1, v1::ARG_KEY_GRID, 0, 0, 1},
      {1, v1::ARG_KEY_BLOCKS_PER_SM, 0, 0.5, 0},
  };
  for (const auto& row : rows) {
    b.add_arg_event(row.event);
    b.add_arg_key(row.key);
    b.add_arg_int(row.int_value);
    b.add_arg_double(row.double_value);
    b.add_arg_string(row.string_value);
  }
  return b;
}

absl::Status Append(const v1::EventBatch& batch, EventBatchLimits limits = {}) {
  Trace trace;
  return AppendEventBatch(batch, limits, trace);
}

TEST(EventBatchTest, AppendsHandBatchAfterExistingEvents) {
  Trace trace =
      UniformTrace(1, "op");  // "op" is already StringId 1; one event, no args
  trace.args.key.push_back(ArgKey::kDevice);
  trace.args.int_value.push_back(0);
  trace.args.double_value.push_back(0);
  trace.args.string_value.push_back(StringId{});
  trace.events.arg_begin[1] = 1;  // the existing event owns one argument row
  ASSERT_TRUE(AppendEventBatch(HandBatch(), {}, trace).ok());
  const EventTable& t = trace.events;
  ASSERT_EQ(t.size(), 3u);
  // Starts: 0 + 100 = 100, 100 + 50 = 150.
  EXPECT_EQ(t.start_ns[1], 100);
  EXPECT_EQ(t.start_ns[2], 150);
  EXPECT_EQ(t.kind[2], EventKind::kKernel);
  EXPECT_EQ(t.name[1], (StringId{1}));  // "op" interned once
  EXPECT_EQ(trace.strings.Get(t.name[2]), "k");
  EXPECT_EQ(t.pid[1], 42);
  EXPECT_EQ(t.tid[2], 7);
  EXPECT_EQ(t.correlation[2], 9);
  // Existing row 0, then event 1 owns row 1 and event 2 rows 2 and 3.
  EXPECT_THAT(t.arg_begin, testing::ElementsAre(0, 1, 2, 4));
  EXPECT_EQ(trace.IntArg(1, ArgKey::kBytes), 64);
  EXPECT_EQ(trace.strings.Get(*trace.StringArg(2, ArgKey::kGrid)), "op");
  EXPECT_EQ(trace.DoubleArg(2, ArgKey::kBlocksPerSm), 0.5);
}

TEST(EventBatchTest, MismatchedColumnLengthIsInvalidArgument) {
  v1::EventBatch batch = HandBatch();
  batch.mutable_duration_ns()->RemoveLast();
  const absl::Status status = Append(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "event batch: column \"duration_ns\" has 1 entries, expected 2 "
            "(one per event)");
}

TEST(EventBatchTest, MismatchedArgColumnLengthIsInvalidArgument) {
  v1::EventBatch batch = HandBatch();
  batch.add_arg_double(1.0);
  const absl::Status status = Append(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "event batch: column \"arg_double\" has 4 entries, expected 3 (one "
            "per argument row)");
}

TEST(EventBatchTest, StringIndexOutOfRangeIsInvalidArgument) {
  v1::EventBatch batch = HandBatch();
  batch.set_name(1, 4000);
  const absl::Status status = Append(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      status.message(),
      "event batch: name[1] = 4000 is outside the string table (3 strings)");
}

TEST(EventBatchTest, ArgStringIndexOutOfRangeIsInvalidArgument) {
  v1::EventBatch batch = HandBatch();
  batch.set_arg_string(1, 3);  // strings has indices 0..2
  const absl::Status status = Append(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      status.message(),
      "event batch: arg_string[1] = 3 is outside the string table (3 strings)");
}

TEST(EventBatchTest, UnknownKindIsInvalidArgument) {
  v1::EventBatch batch = HandBatch();
  batch.set_kind(1, 21);  // EVENT_KIND_OTHER = 20 is the last
  const absl::Status status = Append(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      status.message(),
      "event batch: kind[1] = 21 is not a known EventKind (expected 0 to 20)");
}

TEST(EventBatchTest, UnknownPhaseIsInvalidArgument) {
  v1::EventBatch batch = HandBatch();
  batch.set_phase(0, 8);  // EVENT_PHASE_METADATA = 7 is the last
  const absl::Status status = Append(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      status.message(),
      "event batch: phase[0] = 8 is not a known EventPhase (expected 0 to 7)");
}

TEST(EventBatchTest, UnknownArgKeyIsInvalidArgument) {
  v1::EventBatch batch = HandBatch();
  batch.set_arg_key(2, 31);  // ARG_KEY_SELF_CPU_MEMORY_USAGE = 30 is the last
  const absl::Status status = Append(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      status.message(),
      "event batch: arg_key[2] = 31 is not a known ArgKey (expected 0 to 30)");
}

TEST(EventBatchTest, NegativeDurationIsInvalidArgument) {
  v1::EventBatch batch = HandBatch();
  batch.set_duration_ns(1, -5);
  const absl::Status status = Append(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      status.message(),
      "event batch: duration_ns[1] = -5, expected a non-negative duration");
}

TEST(EventBatchTest, ArgEventOutOfRangeIsInvalidArgument) {
  v1::EventBatch batch = HandBatch();
  batch.set_arg_event(2, 2);  // events are 0 and 1
  const absl::Status status = Append(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "event batch: arg_event[2] = 2 is outside the batch (2 events)");
}

TEST(EventBatchTest, DecreasingArgEventIsInvalidArgument) {
  v1::EventBatch batch = HandBatch();
  batch.set_arg_event(2, 0);  // rows now point at events 0, 1, 0
  const absl::Status status = Append(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "event batch: arg_event[2] = 0 is below arg_event[1] = 1, expected "
            "argument rows "
            "in event order");
}

TEST(EventBatchTest, InvalidUtf8StringIsInvalidArgument) {
  // A stray continuation byte, an overlong "/", a UTF-16 surrogate, a code
  // point past U+10FFFF.
  for (std::string_view bad :
       {std::string_view("k\xff"), std::string_view("\xc0\xaf"),
        std::string_view("\xed\xa0\x80"),
        std::string_view("\xf4\x90\x80\x80")}) {
    v1::EventBatch batch = HandBatch();
    batch.set_strings(2, std::string(bad));
    const absl::Status status = Append(batch);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(
        status.message(),
        HasSubstr("event batch: strings[2] is not valid UTF-8 (bytes \""));
  }
  v1::EventBatch batch = HandBatch();
  batch.set_strings(2, "k\xff");
  EXPECT_EQ(Append(batch).message(),
            "event batch: strings[2] is not valid UTF-8 (bytes \"k\\xff\")");
  batch.set_strings(2,
                    "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");  // é € 😀 are fine
  EXPECT_TRUE(Append(batch).ok());
}

TEST(EventBatchTest, NonEmptyFirstStringIsInvalidArgument) {
  v1::EventBatch batch = HandBatch();
  batch.set_strings(0, "x");
  const absl::Status status = Append(batch);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      status.message(),
      "event batch: strings[0] = \"x\", expected \"\" (index 0 means none)");
}

TEST(EventBatchTest, TooManyEventsIsResourceExhausted) {
  EventBatchLimits limits;
  limits.max_events = 1;
  const absl::Status status = Append(HandBatch(), limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "event batch: 2 events, over the limit of 1 (max_events)");
}

TEST(EventBatchTest, TooManyArgsIsResourceExhausted) {
  EventBatchLimits limits;
  limits.max_args = 2;
  const absl::Status status = Append(HandBatch(), limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "event batch: 3 argument rows, over the limit of 2 (max_args)");
}

TEST(EventBatchTest, TooManyStringsIsResourceExhausted) {
  EventBatchLimits limits;
  limits.max_strings = 2;
  const absl::Status status = Append(HandBatch(), limits);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "event batch: 3 strings, over the limit of 2 (max_strings)");
}

TEST(EventBatchTest, TooLongStringIsResourceExhausted) {
  EventBatchLimits limits;
  limits.max_string_bytes = 1;
  const absl::Status status =
      Append(HandBatch(), limits);  // strings[1] = "op" is 2 bytes
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "event batch: 2 bytes in strings[1], over the limit of 1 "
            "(max_string_bytes)");
}

TEST(EventBatchTest, RefusedAppendLeavesTraceUnchanged) {
  Trace trace = MustRead(kSmallTrace);
  v1::EventBatch before;
  EncodeEventBatch(trace, 0, trace.events.size(), before);
  const size_t strings_before = trace.strings.size();
  const size_t args_before = trace.args.size();

  // The bad UTF-8 sits in the last string, so every other string was checked
  // first and would have been interned by a careless decoder.
  v1::EventBatch bad = HandBatch();
  bad.add_strings("new string");
  bad.add_strings("\xff");
  const absl::Status status = AppendEventBatch(bad, {}, trace);
  ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument);

  EXPECT_EQ(trace.strings.size(), strings_before);
  EXPECT_EQ(trace.args.size(), args_before);
  EXPECT_EQ(trace.events.arg_begin.size(), trace.events.size() + 1);
  v1::EventBatch after;
  EncodeEventBatch(trace, 0, trace.events.size(), after);
  EXPECT_EQ(after.SerializeAsString(), before.SerializeAsString());
}

TEST(EventBatchTest, EmptyRangeEncodesToAnEmptyBatch) {
  const Trace trace;  // a fresh Trace has no arg_begin entries at all
  v1::EventBatch batch;
  EncodeEventBatch(trace, 0, 0, batch);
  EXPECT_EQ(batch.kind_size(), 0);
  EXPECT_THAT(batch.strings(), testing::ElementsAre(""));
  Trace out;
  ASSERT_TRUE(AppendEventBatch(batch, {}, out).ok());
  EXPECT_EQ(out.events.size(), 0u);
  EXPECT_THAT(out.events.arg_begin, testing::ElementsAre(0));
}

}  // namespace
}  // namespace profdiff::trace
