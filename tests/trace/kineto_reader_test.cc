// The reader end to end (kineto_reader.cc): a modern trace's columns exactly,
// gzip detected by content, and files that are missing. The document pass,
// the top-level fields and each event's fields are tested in
// kineto_parser_test.cc, kineto_top_level_test.cc and kineto_events_test.cc.
#include "trace/kineto_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/trace/kineto_read.h"

namespace profdiff::trace {
namespace {

using ::testing::HasSubstr;

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

TEST(KinetoReaderTest, MissingFileIsNotFound) {
  KinetoReader reader;
  const absl::Status status =
      reader.ReadFile("/nonexistent/w.pt.trace.json").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("/nonexistent/w.pt.trace.json"));
}

}  // namespace
}  // namespace profdiff::trace
