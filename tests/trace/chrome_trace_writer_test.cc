#include "trace/chrome_trace_writer.h"

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "tests/support/trace_comparison.h"
#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::trace {
namespace {

void ExpectRoundTrip(const Trace& original) {
  std::string json;
  WriteChromeTrace(original, json);
  absl::StatusOr<Trace> again = ReadKinetoTrace(json, "written.json");
  ASSERT_TRUE(again.ok()) << again.status();
  test_support::ExpectSameEvents(original, *again);
  EXPECT_EQ(original.metadata.base_time_ns, again->metadata.base_time_ns);
  EXPECT_EQ(original.metadata.rank, again->metadata.rank);
  EXPECT_EQ(original.metadata.devices.size(), again->metadata.devices.size());
}

TEST(ChromeTraceWriterTest, RoundTripsEscapesAndFractions) {
  absl::StatusOr<Trace> trace = ReadKinetoTrace(R"({"baseTimeNanoseconds": 17,
    "distributedInfo": {"backend": "gloo", "rank": 1, "world_size": 2}, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "say \"hi\"\\n\u00e9", "pid": 1, "tid": 2, "ts": 0.001, "dur": 123456.789,
     "args": {"External id": 3, "Input Dims": [[1, 2]], "Input type": ["float", ""], "dtype": "Float"}},
    {"ph": "f", "cat": "fwdbwd", "name": "fwdbwd", "pid": 1, "tid": 2, "ts": 5, "id": 3, "bp": "e"},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 9, "dur": 1,
     "args": {"blocks per SM": 0.1, "grid": [1, 1, 1], "correlation": 4}}]})",
                                                "in.json");
  ASSERT_TRUE(trace.ok()) << trace.status();
  ExpectRoundTrip(*trace);
}

TEST(ChromeTraceWriterTest, RoundTripsRealTraces) {
  const std::filesystem::path root = profdiff::test_support::TracesDir();
  const std::filesystem::path files[] = {
      root /
          "kineto/tb_plugin_samples_2020/resnet50_num_workers_4/"
          "worker0.v7bd25bd.pt.trace.json.gz",
      root /
          "torch_profiling_tutorial/log/transformer/"
          "dcb0aa1a78e7_4399.1752181589589738346.pt.trace.json.gz",
      root / "param/dlrm_kineto/worker0_step_12.1694128201545.pt.trace.json.gz",
  };
  for (const auto& file : files) {
    if (!std::filesystem::exists(file))
      GTEST_SKIP() << "trace not found: " << file << " (set PROFDIFF_TRACES)";
    SCOPED_TRACE(file.string());
    KinetoReader reader;
    absl::StatusOr<Trace> trace = reader.ReadFile(file.string());
    ASSERT_TRUE(trace.ok()) << trace.status();
    ExpectRoundTrip(*trace);
  }
}

}  // namespace
}  // namespace profdiff::trace
