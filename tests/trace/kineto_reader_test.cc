#include "trace/kineto_reader.h"

#include <absl/strings/str_cat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <libdeflate.h>

namespace profdiff::trace {
namespace {

using ::testing::HasSubstr;

Trace MustRead(std::string_view json) {
  absl::StatusOr<Trace> trace = ReadKinetoTrace(json, "test.json");
  EXPECT_TRUE(trace.ok()) << trace.status();
  return trace.ok() ? std::move(*trace) : Trace{};
}

absl::Status ReadError(std::string_view json) {
  return ReadKinetoTrace(json, "bad.json").status();
}

std::string Gzip(std::string_view text) {
  libdeflate_compressor* compressor = libdeflate_alloc_compressor(6);
  std::string out(libdeflate_gzip_compress_bound(compressor, text.size()),
                  '\0');
  out.resize(libdeflate_gzip_compress(compressor, text.data(), text.size(),
                                      out.data(), out.size()));
  libdeflate_free_compressor(compressor);
  return out;
}

constexpr std::string_view kModernTrace = R"({
  "schemaVersion": 1, "baseTimeNanoseconds": 1700000000000000000,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85000000000, "numSms": 132,
                        "computeMajor": 9, "computeMinor": 0}],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
  "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 11, "ts": 100.125, "dur": 20.5,
     "args": {"External id": 7, "Input Dims": [[2, 3], [3, 4]], "Sequence number": 5, "Fwd thread id": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 105, "dur": 3,
     "args": {"External id": 7, "correlation": 99}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 110, "dur": 9.001,
     "args": {"correlation": 99, "device": 0, "stream": 7, "grid": [1, 2, 1], "block": [128, 1, 1],
              "blocks per SM": 0.25, "est. achieved occupancy %": 12, "registers per thread": 32}},
    {"ph": "s", "id": 99, "pid": 10, "tid": 11, "ts": 105, "cat": "ac2g", "name": "ac2g"},
    {"ph": "f", "id": 99, "pid": 0, "tid": 7, "ts": 110, "cat": "ac2g", "name": "ac2g", "bp": "e"},
    {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 10, "tid": 11, "ts": 101, "s": "t",
     "args": {"Total Reserved": 2097152, "Total Allocated": 512, "Bytes": 512, "Device Type": 1, "Device Id": 0}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 10, "tid": 11, "ts": 99, "dur": 40},
    {"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 10, "tid": 11, "ts": 99.5, "dur": 30,
     "args": {"Python id": 12, "Python parent id": 3}},
    {"ph": "X", "cat": "mystery_category", "name": "something", "pid": 10, "tid": 11, "ts": 1, "dur": 1},
    {"name": "thread_name", "ph": "M", "pid": 10, "tid": 11, "args": {"name": "python"}}
  ]})";

TEST(KinetoReaderTest, ReadsModernTraceColumnsExactly) {
  const Trace trace = MustRead(kModernTrace);
  ASSERT_EQ(trace.events.size(), 10u);
  const EventTable& t = trace.events;
  EXPECT_EQ(t.kind[0], EventKind::kCpuOp);
  EXPECT_EQ(trace.strings.Get(t.name[0]), "aten::mm");
  EXPECT_EQ(t.start_ns[0], 100125);
  EXPECT_EQ(t.duration_ns[0], 20500);
  EXPECT_EQ(t.external_id[0], 7);
  EXPECT_EQ(t.sequence_number[0], 5);
  EXPECT_EQ(t.forward_thread_id[0], 1);
  EXPECT_EQ(trace.strings.Get(t.input_shapes[0]),
            "[[2,3],[3,4]]");  // whitespace removed
  EXPECT_EQ(t.kind[1], EventKind::kRuntime);
  EXPECT_EQ(t.correlation[1], 99);
  EXPECT_EQ(t.kind[2], EventKind::kKernel);
  EXPECT_EQ(t.duration_ns[2], 9001);
  EXPECT_EQ(trace.DoubleArg(2, ArgKey::kBlocksPerSm), 0.25);
  EXPECT_EQ(trace.DoubleArg(2, ArgKey::kAchievedOccupancyPct), 12.0);
  EXPECT_EQ(trace.IntArg(2, ArgKey::kRegistersPerThread), 32);
  EXPECT_EQ(trace.strings.Get(*trace.StringArg(2, ArgKey::kGrid)), "[1,2,1]");
  EXPECT_EQ(t.kind[3], EventKind::kFlow);
  EXPECT_EQ(t.flow_id[3], 99);
  EXPECT_TRUE(trace.IntArg(4, ArgKey::kFlowBindingEnclosing).has_value());
  EXPECT_EQ(t.kind[5], EventKind::kMemory);
  EXPECT_EQ(trace.IntArg(5, ArgKey::kTotalAllocatedBytes), 512);
  EXPECT_EQ(t.kind[6], EventKind::kProfilerStep);
  EXPECT_EQ(t.kind[7], EventKind::kModule);
  EXPECT_EQ(t.python_id[7], 12);
  EXPECT_EQ(t.kind[8], EventKind::kOther);
  EXPECT_EQ(trace.strings.Get(t.category[8]), "mystery_category");
  EXPECT_EQ(trace.counters.unknown_category_events, 1);
  EXPECT_EQ(t.kind[9], EventKind::kMetadata);
  EXPECT_EQ(trace.metadata.base_time_ns, 1700000000000000000);
  EXPECT_EQ(trace.metadata.rank, 3);
  EXPECT_EQ(trace.metadata.world_size, 8);
  EXPECT_EQ(trace.metadata.backend, "nccl");
  ASSERT_EQ(trace.metadata.devices.size(), 1u);
  EXPECT_EQ(trace.metadata.devices[0].num_sms, 132);
  EXPECT_EQ(trace.metadata.source_format, SourceFormat::kKinetoJson);
}

TEST(KinetoReaderTest, Reads2021EraWithLowercaseExternalIdAndStreamStrings) {
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

TEST(KinetoReaderTest, ReadsLegacyBareArray) {
  const Trace trace = MustRead(R"([
    {"name": "aten::relu", "ph": "X", "ts": 10, "dur": 4, "tid": 1, "pid": "CPU functions", "args": {}},
    {"name": "aten::mul", "ph": "X", "ts": 20, "dur": 2, "tid": 1, "pid": "CPU functions", "args": {}}
  ])");
  ASSERT_EQ(trace.events.size(), 2u);
  EXPECT_EQ(trace.events.kind[0], EventKind::kCpuOp);
  EXPECT_LT(trace.events.pid[0], 0);  // a named pid gets a stable synthetic id
  EXPECT_EQ(trace.events.pid[0], trace.events.pid[1]);
  EXPECT_EQ(trace.metadata.source_format, SourceFormat::kLegacyJson);
}

// torch without Kineto writes no ProfilerStep or module events; record_function
// ranges named like them (a step loop, global nn.Module hooks) take their
// roles.
TEST(KinetoReaderTest,
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

TEST(KinetoReaderTest, QuotedIntegersFromRocmTracesAreRead) {
  const Trace trace = MustRead(R"({"traceEvents": [
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 2, "tid": 0, "ts": 1, "dur": 1,
     "args": {"bytes": "256", "stream": "0x1f"}}]})");
  EXPECT_EQ(trace.IntArg(0, ArgKey::kBytes), 256);
  EXPECT_EQ(trace.IntArg(0, ArgKey::kStream), 31);
}

TEST(KinetoReaderTest, GzipIsDetectedByContent) {
  const std::string gz = Gzip(kModernTrace);
  absl::StatusOr<Trace> trace = ReadKinetoTrace(gz, "x.json.gz");
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_EQ(trace->events.size(), 10u);
}

TEST(KinetoReaderTest, TruncatedGzipIsDataLoss) {
  const std::string gz = Gzip(kModernTrace);
  const absl::Status status =
      ReadKinetoTrace(gz.substr(0, gz.size() / 2), "cut.json.gz").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(status.message(),
              HasSubstr("cut.json.gz: gzip data is corrupt or truncated"));
}

TEST(KinetoReaderTest, BareNaTokenIsInvalidArgumentNamingEventAndField) {
  const absl::Status status = ReadError(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": N/A}]})");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("bad.json: event #1 (byte "));
  EXPECT_THAT(status.message(), HasSubstr("field \"dur\""));
  EXPECT_THAT(status.message(), HasSubstr("N/A"));
}

TEST(KinetoReaderTest, WrongTypeIsInvalidArgument) {
  const absl::Status status = ReadError(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": "soon", "dur": 1}]})");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("event #0"));
  EXPECT_THAT(status.message(), HasSubstr("field \"ts\": expected a number"));
}

TEST(KinetoReaderTest, MissingDurationIsInvalidArgument) {
  const absl::Status status = ReadError(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 5}]})");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("missing field \"dur\""));
}

TEST(KinetoReaderTest, MissingPhaseIsInvalidArgument) {
  EXPECT_THAT(
      ReadError(R"({"traceEvents": [{"name": "a", "ts": 5}]})").message(),
      HasSubstr("event #0 (byte 17): missing field \"ph\""));
}

TEST(KinetoReaderTest, InvalidJsonIsInvalidArgument) {
  const absl::Status status =
      ReadError(R"({"traceEvents": [{"ph": "X", "ts": 1, "dur": 1,,}]})");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("bad.json"));
}

TEST(KinetoReaderTest, TruncatedJsonIsInvalidArgument) {
  const std::string json(kModernTrace.substr(0, kModernTrace.size() / 2));
  const absl::Status status = ReadError(json);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("bad.json"));
}

TEST(KinetoReaderTest, CutAndNonJsonFilesSayWhatTheyAre) {
  const std::string events =
      R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 1},)"
      R"( {"ph": "X", "name": "b", "ts": 3, "dur": 1})";
  // Cut inside a string, after an event, and after the event's comma.
  EXPECT_THAT(ReadError(events.substr(0, 70)).message(),
              HasSubstr("truncated at byte 70 of the document (it ends inside "
                        "a string"));
  EXPECT_THAT(ReadError(events).message(),
              HasSubstr(absl::StrCat("truncated at byte ", events.size(),
                                     " of the document (after event #")));
  EXPECT_THAT(ReadError(events + ",").message(),
              HasSubstr("truncated at byte"));
  // A PNG renamed .json, and a file of blanks.
  EXPECT_THAT(
      ReadError(std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16)).message(),
      HasSubstr("not JSON (starts with bytes 89 50 4e 47 0d 0a 1a 0a)"));
  EXPECT_THAT(ReadError("  \n").message(),
              HasSubstr("no JSON (3 bytes of white space)"));
  // A real syntax error inside the document keeps its position.
  EXPECT_THAT(
      ReadError(R"({"traceEvents": [{"ph": "X" "name": "a"}]})").message(),
      HasSubstr("event #0 (byte 28): invalid JSON"));
}

TEST(KinetoReaderTest, InvalidUtf8NamesItsByteOffset) {
  std::string json = R"({"traceEvents": [{"ph": "X", "name": "caf)";
  json += '\xe9';  // Latin-1 é: not UTF-8
  json += R"(", "ts": 1, "dur": 1}]})";
  const absl::Status status = ReadError(json);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  // `{"traceEvents": [` (17) + `{"ph": "X", ` (12) + `"name": "caf` (12) =
  // byte 41.
  EXPECT_THAT(status.message(), HasSubstr("byte 41: invalid UTF-8"));
}

TEST(KinetoReaderTest, ObjectWithoutTraceEventsIsInvalidArgument) {
  EXPECT_THAT(ReadError(R"({"schemaVersion": 1})").message(),
              HasSubstr("no \"traceEvents\""));
}

TEST(KinetoReaderTest, NegativeDurationIsInvalidArgument) {
  EXPECT_THAT(
      ReadError(
          R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 5, "dur": -1}]})")
          .message(),
      HasSubstr("expected a non-negative duration"));
}

TEST(KinetoReaderTest, OverlongNameIsResourceExhausted) {
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

TEST(KinetoReaderTest, TooManyEventsIsResourceExhausted) {
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

TEST(KinetoReaderTest, BeginEndPhasesAreCountedNotKept) {
  const Trace trace = MustRead(R"({"traceEvents": [
    {"ph": "B", "name": "a", "pid": 1, "tid": 1, "ts": 5}, {"ph": "E", "pid": 1, "tid": 1, "ts": 6},
    {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 6, "dur": 1}]})");
  EXPECT_EQ(trace.events.size(), 1u);
  EXPECT_EQ(trace.counters.unsupported_phase_events, 2);
}

TEST(KinetoReaderTest, MissingFileIsNotFound) {
  KinetoReader reader;
  const absl::Status status =
      reader.ReadFile("/nonexistent/w.pt.trace.json").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("/nonexistent/w.pt.trace.json"));
}

}  // namespace
}  // namespace profdiff::trace
