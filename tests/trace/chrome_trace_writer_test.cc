#include "trace/chrome_trace_writer.h"

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::trace {
namespace {

// Two traces hold the same events: every column, every argument, every string by text.
void ExpectSameEvents(const Trace& a, const Trace& b) {
  ASSERT_EQ(a.events.size(), b.events.size());
  const EventTable& x = a.events;
  const EventTable& y = b.events;
  for (size_t i = 0; i < x.size(); ++i) {
    SCOPED_TRACE(testing::Message() << "event " << i);
    ASSERT_EQ(x.kind[i], y.kind[i]);
    ASSERT_EQ(x.phase[i], y.phase[i]);
    ASSERT_EQ(a.strings.Get(x.name[i]), b.strings.Get(y.name[i]));
    ASSERT_EQ(a.strings.Get(x.category[i]), b.strings.Get(y.category[i]));
    ASSERT_EQ(x.start_ns[i], y.start_ns[i]);
    ASSERT_EQ(x.duration_ns[i], y.duration_ns[i]);
    ASSERT_EQ(x.correlation[i], y.correlation[i]);
    ASSERT_EQ(x.external_id[i], y.external_id[i]);
    ASSERT_EQ(x.sequence_number[i], y.sequence_number[i]);
    ASSERT_EQ(x.python_id[i], y.python_id[i]);
    ASSERT_EQ(x.flow_id[i], y.flow_id[i]);
    ASSERT_EQ(a.strings.Get(x.input_shapes[i]), b.strings.Get(y.input_shapes[i]));
    ASSERT_EQ(x.arg_begin[i + 1] - x.arg_begin[i], y.arg_begin[i + 1] - y.arg_begin[i]);
    for (uint32_t k = 0; k < x.arg_begin[i + 1] - x.arg_begin[i]; ++k) {
      const uint32_t p = x.arg_begin[i] + k;
      const uint32_t q = y.arg_begin[i] + k;
      ASSERT_EQ(a.args.key[p], b.args.key[q]);
      ASSERT_EQ(a.args.int_value[p], b.args.int_value[q]);
      ASSERT_EQ(a.args.double_value[p], b.args.double_value[q]);
      ASSERT_EQ(a.strings.Get(a.args.string_value[p]), b.strings.Get(b.args.string_value[q]));
    }
  }
  EXPECT_EQ(a.metadata.base_time_ns, b.metadata.base_time_ns);
  EXPECT_EQ(a.metadata.rank, b.metadata.rank);
  EXPECT_EQ(a.metadata.devices.size(), b.metadata.devices.size());
}

void ExpectRoundTrip(const Trace& original) {
  std::string json;
  WriteChromeTrace(original, json);
  absl::StatusOr<Trace> again = ReadKinetoTrace(json, "written.json");
  ASSERT_TRUE(again.ok()) << again.status();
  ExpectSameEvents(original, *again);
}

TEST(ChromeTraceWriterTest, RoundTripsEscapesAndFractions) {
  absl::StatusOr<Trace> trace = ReadKinetoTrace(R"({"baseTimeNanoseconds": 17,
    "distributedInfo": {"backend": "gloo", "rank": 1, "world_size": 2}, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "say \"hi\"\\n\u00e9", "pid": 1, "tid": 2, "ts": 0.001, "dur": 123456.789,
     "args": {"External id": 3, "Input Dims": [[1, 2]], "Input type": ["float", ""], "dtype": "Float"}},
    {"ph": "f", "cat": "fwdbwd", "name": "fwdbwd", "pid": 1, "tid": 2, "ts": 5, "id": 3, "bp": "e"},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 9, "dur": 1,
     "args": {"blocks per SM": 0.1, "grid": [1, 1, 1], "correlation": 4}}]})", "in.json");
  ASSERT_TRUE(trace.ok()) << trace.status();
  ExpectRoundTrip(*trace);
}

TEST(ChromeTraceWriterTest, RoundTripsRealTraces) {
  const std::filesystem::path root = profdiff::test_support::TracesDir();
  const std::filesystem::path files[] = {
      root / "kineto/tb_plugin_samples_2020/resnet50_num_workers_4/worker0.v7bd25bd.pt.trace.json.gz",
      root / "torch_profiling_tutorial/log/transformer/dcb0aa1a78e7_4399.1752181589589738346.pt.trace.json.gz",
      root / "param/dlrm_kineto/worker0_step_12.1694128201545.pt.trace.json.gz",
  };
  for (const auto& file : files) {
    if (!std::filesystem::exists(file)) GTEST_SKIP() << "trace not found: " << file << " (set PROFDIFF_TRACES)";
    SCOPED_TRACE(file.string());
    KinetoReader reader;
    absl::StatusOr<Trace> trace = reader.ReadFile(file.string());
    ASSERT_TRUE(trace.ok()) << trace.status();
    ExpectRoundTrip(*trace);
  }
}

}  // namespace
}  // namespace profdiff::trace
