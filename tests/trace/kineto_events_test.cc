// Each event of a Kineto trace (kineto_events.cc): its fields read and
// converted in every era's spelling, its kind, and the errors that name the
// event, its byte and the field.
#include <absl/strings/str_cat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/trace/kineto_read.h"
#include "trace/kineto_reader.h"

namespace profdiff::trace {
namespace {

using ::testing::HasSubstr;

TEST(KinetoEventsTest, Reads2021EraWithLowercaseExternalIdAndStreamStrings) {
  const Trace trace = MustRead(R"({"traceEvents": [
    {"ph": "X", "cat": "Operator", "name": "aten::add", "pid": 25738, "tid": "25738", "ts": 1623142623460111, "dur": 25,
     "args": {"External id": 2, "Input dims": [[1], [1]]}},
    {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 25738, "tid": "25738", "ts": 1623142623460115, "dur": 5,
     "args": {"correlation": 31, "external id": 2}},
    {"ph": "X", "cat": "Kernel", "name": "add_kernel", "pid": 0, "tid": "stream 7", "ts": 1623142623460130, "dur": 4,
     "args": {"correlation": 31, "external id": 2}},
    {"ph": "s", "id": 31, "pid": 25738, "tid": 25738, "ts": 1623142623460115, "cat": "async", "name": "launch"}
  ]})");
  const EventTable& t = trace.events;
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t.kind[0], EventKind::kCpuOp);
  EXPECT_EQ(t.tid[0], 25738);  // numeric string
  EXPECT_EQ(trace.strings.Get(t.input_shapes[0]), "[[1],[1]]");
  EXPECT_EQ(t.external_id[1], 2);  // "external id" spelling
  EXPECT_EQ(t.kind[2], EventKind::kKernel);
  EXPECT_EQ(t.tid[2], 7);  // "stream 7"
  EXPECT_EQ(t.start_ns[2], 1623142623460130000);
  EXPECT_EQ(t.kind[3], EventKind::kFlow);
}

// torch without Kineto writes no ProfilerStep or module events; record_function
// ranges named like them (a step loop, global nn.Module hooks) take their
// roles.
TEST(KinetoEventsTest,
     LegacyRecordFunctionRangesNamedLikeStepsAndModulesTakeTheirRoles) {
  const Trace trace = MustRead(R"({"traceEvents": [
    {"name": "ProfilerStep#3", "ph": "X", "ts": 10, "dur": 40, "tid": 1, "pid": "CPU functions", "args": {}},
    {"name": "nn.Module: Linear_1", "ph": "X", "ts": 12, "dur": 10, "tid": 1, "pid": "CPU functions", "args": {}},
    {"name": "aten::addmm", "ph": "X", "ts": 13, "dur": 8, "tid": 1, "pid": "CPU functions", "args": {}}
  ], "distributedInfo": {"rank": 1, "world_size": 2, "backend": "gloo"}})");
  ASSERT_EQ(trace.events.size(), 3u);
  EXPECT_EQ(trace.events.kind[0], EventKind::kProfilerStep);
  EXPECT_EQ(trace.events.kind[1], EventKind::kUserAnnotation);
  EXPECT_EQ(trace.events.kind[2], EventKind::kCpuOp);
}

TEST(KinetoEventsTest, QuotedIntegersFromRocmTracesAreRead) {
  const Trace trace = MustRead(R"({"traceEvents": [
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 2, "tid": 0, "ts": 1, "dur": 1,
     "args": {"bytes": "256", "stream": "0x1f"}}]})");
  EXPECT_EQ(trace.IntArg(0, ArgKey::kBytes), 256);
  EXPECT_EQ(trace.IntArg(0, ArgKey::kStream), 31);
}

TEST(KinetoEventsTest, BareNaTokenIsInvalidArgumentNamingEventAndField) {
  const absl::Status status = ReadError(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": N/A}]})");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("bad.json: event #1 (byte "));
  EXPECT_THAT(status.message(), HasSubstr("field \"dur\""));
  EXPECT_THAT(status.message(), HasSubstr("N/A"));
}

TEST(KinetoEventsTest, WrongTypeIsInvalidArgument) {
  const absl::Status status = ReadError(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": "soon", "dur": 1}]})");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("event #0"));
  EXPECT_THAT(status.message(), HasSubstr("field \"ts\": expected a number"));
}

TEST(KinetoEventsTest, MissingDurationIsInvalidArgument) {
  const absl::Status status = ReadError(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 5}]})");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("missing field \"dur\""));
}

TEST(KinetoEventsTest, MissingPhaseIsInvalidArgument) {
  EXPECT_THAT(
      ReadError(R"({"traceEvents": [{"name": "a", "ts": 5}]})").message(),
      HasSubstr("event #0 (byte 17): missing field \"ph\""));
}

TEST(KinetoEventsTest, NegativeDurationIsInvalidArgument) {
  EXPECT_THAT(
      ReadError(
          R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 5, "dur": -1}]})")
          .message(),
      HasSubstr("expected a non-negative duration"));
}

TEST(KinetoEventsTest, OverlongNameIsResourceExhausted) {
  ReaderLimits limits;
  limits.max_string_bytes = 8;
  KinetoReader reader(limits);
  const absl::Status status =
      reader
          .ReadBytes(
              R"({"traceEvents": [{"ph": "X", "name": "aten::convolution", "ts": 5, "dur": 1}]})",
              "big.json")
          .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("max_string_bytes 8"));
}

TEST(KinetoEventsTest, TooManyEventsIsResourceExhausted) {
  ReaderLimits limits;
  limits.max_events = 1;
  KinetoReader reader(limits);
  const absl::Status status =
      reader
          .ReadBytes(R"([{"ph": "X", "name": "a", "ts": 5, "dur": 1},
                                                   {"ph": "X", "name": "b", "ts": 6, "dur": 1}])",
                     "many.json")
          .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(status.message(), HasSubstr("max_events 1"));
}

TEST(KinetoEventsTest, BeginEndPhasesAreCountedNotKept) {
  const Trace trace = MustRead(R"({"traceEvents": [
    {"ph": "B", "name": "a", "pid": 1, "tid": 1, "ts": 5}, {"ph": "E", "pid": 1, "tid": 1, "ts": 6},
    {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 6, "dur": 1}]})");
  EXPECT_EQ(trace.events.size(), 1u);
  EXPECT_EQ(trace.counters.unsupported_phase_events, 2);
}

TEST(KinetoEventsTest, MissingTimestampIsInvalidArgumentExceptOnMetadata) {
  EXPECT_THAT(
      ReadError(R"({"traceEvents": [{"ph": "X", "name": "a", "dur": 1}]})")
          .message(),
      HasSubstr("bad.json: event #0 (byte 17): missing field \"ts\""));
  const Trace trace = MustRead(
      R"({"traceEvents": [{"ph": "M", "name": "process_name", "pid": 3}]})");
  ASSERT_EQ(trace.events.size(), 1u);
  EXPECT_EQ(trace.events.kind[0], EventKind::kMetadata);
  EXPECT_EQ(trace.events.start_ns[0], 0);
}

TEST(KinetoEventsTest, OnlyCompleteEventsKeepADuration) {
  const Trace trace = MustRead(R"({"traceEvents": [
    {"ph": "i", "name": "mark", "ts": 5, "dur": 9},
    {"ph": "X", "name": "op", "ts": 5, "dur": 9}]})");
  ASSERT_EQ(trace.events.size(), 2u);
  EXPECT_EQ(trace.events.phase[0], EventPhase::kInstant);
  EXPECT_EQ(trace.events.duration_ns[0], 0);
  EXPECT_EQ(trace.events.phase[1], EventPhase::kComplete);
  EXPECT_EQ(trace.events.duration_ns[1], 9000);
}

TEST(KinetoEventsTest, EventThatIsNotAnObjectIsInvalidArgument) {
  const absl::Status status = ReadError(R"({"traceEvents": [17]})");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("event #0 (byte 17): field \"\": expected an event "
                        "object, got \"17\""));
}

TEST(KinetoEventsTest, ArgumentsOfUnsupportedPhasesAreDropped) {
  const Trace trace = MustRead(R"({"traceEvents": [
    {"ph": "b", "name": "async", "ts": 1, "args": {"bytes": 4}},
    {"ph": "X", "name": "op", "ts": 2, "dur": 1, "args": {"bytes": 8}}]})");
  ASSERT_EQ(trace.events.size(), 1u);
  EXPECT_EQ(trace.counters.unsupported_phase_events, 1);
  EXPECT_EQ(trace.args.size(), 1u);
  EXPECT_EQ(trace.IntArg(0, ArgKey::kBytes), 8);
}

// The CLI's run loader asks the reader to leave plain Python frames out: a
// frame in Kineto's field order is passed over from its name on but for its
// times, one in another order is read whole (and checked) and then left out;
// nn.Module ranges, instants and other categories are kept with their
// arguments. The frames' extent is kept for the implicit step.
constexpr std::string_view kFrames = R"({"traceEvents": [
  {"ph": "X", "cat": "python_function", "name": "train.py(12): step", "pid": 1, "tid": 1,
   "ts": 10, "dur": 5, "args": {"Python parent id": 1, "Python id": 2, "Python thread": 0}},
  {"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 1, "tid": 1,
   "ts": 11, "dur": 3, "args": {"Python parent id": 2, "Python id": 3, "Python thread": 0,
   "Python module id": 0}},
  {"name": "torch/nn/modules/linear.py(125): forward", "ts": 11.5, "dur": 6, "pid": 1, "tid": 1,
   "args": {"Python id": 4, "Python module id": 5}, "cat": "python_function", "ph": "X"},
  {"ph": "i", "cat": "python_function", "name": "a mark", "pid": 1, "tid": 1, "ts": 12, "s": "t"},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 12, "dur": 1,
   "args": {"External id": 9}}]})";

Trace ReadLeavingFramesOut(std::string_view json) {
  KinetoReader reader({.keep_python_frames = false});
  absl::StatusOr<Trace> trace = reader.ReadBytes(json, "frames.json");
  EXPECT_TRUE(trace.ok()) << trace.status();
  return trace.ok() ? *std::move(trace) : Trace{};
}

TEST(KinetoEventsTest, PythonFramesAreLeftOutWhenAsked) {
  const Trace all = MustRead(kFrames);
  ASSERT_EQ(all.events.size(), 5u);
  EXPECT_EQ(all.counters.python_frames_left_out, 0);
  EXPECT_TRUE(all.left_out_frames == std::vector<FrameExtent>{{}});

  const Trace kept = ReadLeavingFramesOut(kFrames);
  ASSERT_EQ(kept.events.size(), 3u);
  EXPECT_EQ(kept.counters.python_frames_left_out, 2);
  EXPECT_EQ(kept.strings.Get(kept.events.name[0]), "nn.Module: Linear_0");
  EXPECT_EQ(kept.events.kind[0], EventKind::kModule);
  EXPECT_EQ(kept.events.python_id[0], 3);
  EXPECT_EQ(kept.events.python_parent_id[0], 2);
  EXPECT_EQ(kept.strings.Get(kept.events.name[1]), "a mark");
  EXPECT_EQ(kept.events.phase[1], EventPhase::kInstant);
  EXPECT_EQ(kept.strings.Get(kept.events.name[2]), "aten::mm");
  EXPECT_EQ(kept.events.external_id[2], 9);
  // The arguments of the frame read whole went with it.
  EXPECT_EQ(all.args.size(), 2u);
  ASSERT_EQ(kept.args.size(), 1u);
  EXPECT_EQ(kept.IntArg(0, ArgKey::kPythonModuleId), 0);
  EXPECT_EQ(kept.events.arg_begin[1], 1u);
  EXPECT_EQ(kept.events.arg_begin[2], 1u);
  // From the first frame's start (10 us) to the second's end (11.5 + 6 us),
  // whichever field order each was written in.
  ASSERT_EQ(kept.left_out_frames.size(), 1u);
  EXPECT_EQ(kept.left_out_frames[0].first_start_ns, 10000);
  EXPECT_EQ(kept.left_out_frames[0].last_end_ns, 17500);
}

TEST(KinetoEventsTest, AFrameInKinetosOrderIsCheckedOnlyForItsTimes) {
  // Its times are read and checked, wherever they are.
  KinetoReader reader({.keep_python_frames = false});
  const auto error = [&reader](std::string_view json) {
    const absl::StatusOr<Trace> read = reader.ReadBytes(json, "bad.json");
    return read.ok() ? std::string("read")
                     : std::string(read.status().message());
  };
  EXPECT_THAT(
      error(
          R"({"traceEvents": [{"ph": "X", "cat": "python_function", "name": "f", "pid": 1, "tid": 1, "ts": "soon", "dur": 1}]})"),
      HasSubstr("field \"ts\": expected a number of microseconds"));
  EXPECT_THAT(
      error(
          R"({"traceEvents": [{"ph": "X", "cat": "python_function", "name": "f", "dur": -1, "ts": 1}]})"),
      HasSubstr("field \"dur\": expected a non-negative duration"));
  EXPECT_THAT(
      error(
          R"({"traceEvents": [{"ph": "X", "cat": "python_function", "name": "f", "ts": 1}]})"),
      HasSubstr("missing field \"dur\" on a complete (\"X\") event"));
  // Past its name, its other fields are not: a damaged argument or thread id
  // goes unseen (reading it whole, as the agent does, finds it).
  constexpr std::string_view kBadArgInOrder = R"({"traceEvents": [
    {"ph": "X", "cat": "python_function", "name": "f", "pid": 1, "tid": [1], "ts": 1, "dur": 1,
     "args": {"Python id": "x"}}]})";
  EXPECT_THAT(ReadError(kBadArgInOrder).message(), HasSubstr("field \"tid\""));
  const Trace left_out = ReadLeavingFramesOut(kBadArgInOrder);
  EXPECT_EQ(left_out.counters.python_frames_left_out, 1);
  EXPECT_EQ(left_out.left_out_frames[0].last_end_ns, 2000);
  // Before its name is known, it is read and checked as any event.
  const absl::StatusOr<Trace> bad = reader.ReadBytes(
      R"({"traceEvents": [{"tid": [1], "ph": "X", "cat": "python_function", "name": "f", "ts": 1, "dur": 1}]})",
      "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("field \"tid\""));
}

TEST(KinetoEventsTest, ArgumentJsonNestedPastMaxDepthIsResourceExhausted) {
  constexpr std::string_view kJson =
      R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 1,)"
      R"( "args": {"Input Dims": [[[[[1]]]]]}}]})";
  ReaderLimits limits;
  limits.max_depth = 4;
  KinetoReader reader(limits);
  const absl::Status status = reader.ReadBytes(kJson, "deep.json").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  // The error is at the argument's key.
  EXPECT_THAT(status.message(),
              HasSubstr(absl::StrCat("deep.json: event #0 (byte ",
                                     kJson.find("\"Input Dims\""), "): ")));
  EXPECT_THAT(status.message(),
              HasSubstr("JSON nesting 5 deep, over max_depth 4"));
}

}  // namespace
}  // namespace profdiff::trace
