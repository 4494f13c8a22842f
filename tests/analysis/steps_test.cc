// Steps (docs/semantics.md §2), through the profile of a small hand-written
// trace: every expected number is worked out in the comments from the event
// times (µs).
#include "analysis/steps.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/strings/str_cat.h>
#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "tests/analysis/fixture_trace.h"
#include "trace/kineto_reader.h"
#include "trace/span_merge.h"

namespace profdiff::analysis {
namespace {

using fixture::Fixture;
using fixture::Profile;

TEST(StepsTest, DeviceExtensionAndTrailingStepWithoutDeviceWorkDropped) {
  const v1::WorkerProfile p = Profile(Fixture(/*with_memset=*/true));
  ASSERT_EQ(p.steps_size(), 2);
  EXPECT_EQ(p.steps_dropped(), 1);  // step 3 launched nothing
  // Step 1: host [0,100]; its memcpy ends at 104 -> [0,104).
  EXPECT_EQ(p.steps(0).step(), 1);
  EXPECT_DOUBLE_EQ(p.steps(0).start_us(), 0);
  EXPECT_DOUBLE_EQ(p.steps(0).duration_us(), 104);
  EXPECT_EQ(p.steps(0).device_activity_count(), 2);
  // Step 2: starts at the previous end (104 > 100), ends with mm_kernel at 170.
  EXPECT_DOUBLE_EQ(p.steps(1).start_us(), 104);
  EXPECT_DOUBLE_EQ(p.steps(1).duration_us(), 66);
  EXPECT_EQ(p.steps(1).device_activity_count(), 2);
}

TEST(StepsTest, LastStepWithUnderEightyPercentOfDeviceWorkIsDropped) {
  // Without the memset step 2 launched 1 activity; 0.8 x 2 = 1.6 > 1, so it is
  // cut short.
  const v1::WorkerProfile p = Profile(Fixture(/*with_memset=*/false));
  ASSERT_EQ(p.steps_size(), 1);
  EXPECT_EQ(p.steps_dropped(), 2);
}

TEST(StepsTest, NoProfilerStepMakesOneStepOverHostActivity) {
  const v1::WorkerProfile p = Profile(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
    {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 30, "dur": 10}]})");
  ASSERT_EQ(p.steps_size(), 1);
  EXPECT_EQ(p.steps(0).step(), 0);
  EXPECT_DOUBLE_EQ(p.steps(0).start_us(), 10);
  EXPECT_DOUBLE_EQ(p.steps(0).duration_us(), 30);  // [10, 40)
  EXPECT_DOUBLE_EQ(p.steps(0).cpu_exec_us(), 15);
  EXPECT_DOUBLE_EQ(p.steps(0).other_us(), 15);
}

TEST(StepsTest, NoProfilerStepSpansHostOpsOnlyNotAnnotations) {
  // A user annotation [0,100] around ops [10,15] and [30,40]: the step is the
  // ops' [10,40).
  const v1::WorkerProfile p = Profile(R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "train", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
    {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 30, "dur": 10}]})");
  ASSERT_EQ(p.steps_size(), 1);
  EXPECT_DOUBLE_EQ(p.steps(0).start_us(), 10);
  EXPECT_DOUBLE_EQ(p.steps(0).duration_us(), 30);
}

TEST(StepsTest, NoProfilerStepSpansPythonFramesLeftOutByTheReader) {
  // Frames [0,50] and [5,60] around ops [10,15] and [30,40]: the step is
  // [0,60) whether the reader kept the frames or left them out.
  constexpr std::string_view kTrace = R"({"traceEvents": [
    {"ph": "X", "cat": "python_function", "name": "train.py(3): main", "pid": 1, "tid": 1, "ts": 0, "dur": 50},
    {"ph": "X", "cat": "python_function", "name": "train.py(9): step", "pid": 1, "tid": 2, "ts": 5, "dur": 55},
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
    {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 30, "dur": 10}]})";
  for (const bool keep : {true, false}) {
    SCOPED_TRACE(keep ? "kept" : "left out");
    trace::KinetoReader reader({.keep_python_frames = keep});
    absl::StatusOr<trace::Trace> trace = reader.ReadBytes(kTrace, "t.json");
    ASSERT_TRUE(trace.ok()) << trace.status();
    EXPECT_EQ(trace->events.size(), keep ? 4u : 2u);
    const v1::WorkerProfile p = BuildWorkerProfile(*trace, {"r", "w", 1}, {});
    ASSERT_EQ(p.steps_size(), 1);
    EXPECT_DOUBLE_EQ(p.steps(0).start_us(), 0);
    EXPECT_DOUBLE_EQ(p.steps(0).duration_us(), 60);
    EXPECT_EQ(p.event_count(), 4);
  }
}

TEST(StepsTest, EachSpanWithoutProfilerStepSpansItsOwnFramesLeftOut) {
  // Two spans of one worker, the second 1 ms later by its time base: frames
  // [0,50] and [100,300] around ops [10,15] and [150,160]. Each span's step
  // spans its own frames, kept or left out.
  const auto span = [](int64_t base_ns, int frame_start, int frame_dur,
                       int op_start) {
    return absl::StrCat(R"({"baseTimeNanoseconds": )", base_ns,
                        R"(, "traceEvents": [
      {"ph": "X", "cat": "python_function", "name": "main", "pid": 1, "tid": 1, "ts": )",
                        frame_start, R"(, "dur": )", frame_dur, R"(},
      {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": )",
                        op_start, R"(, "dur": 5}]})");
  };
  for (const bool keep : {true, false}) {
    SCOPED_TRACE(keep ? "kept" : "left out");
    trace::KinetoReader reader({.keep_python_frames = keep});
    std::vector<trace::Trace> spans;
    for (const std::string& json :
         {span(1'000'000, 0, 50, 10), span(2'000'000, 100, 200, 150)}) {
      absl::StatusOr<trace::Trace> read = reader.ReadBytes(json, "s.json");
      ASSERT_TRUE(read.ok()) << read.status();
      spans.push_back(*std::move(read));
    }
    const v1::WorkerProfile p = BuildWorkerProfile(
        trace::MergeSpans(std::move(spans)), {"r", "w", 2}, {});
    ASSERT_EQ(p.steps_size(), 2);
    EXPECT_DOUBLE_EQ(p.steps(0).start_us(), 0);
    EXPECT_DOUBLE_EQ(p.steps(0).duration_us(), 50);
    EXPECT_DOUBLE_EQ(p.steps(1).start_us(), 1000 + 100);
    EXPECT_DOUBLE_EQ(p.steps(1).duration_us(), 200);
  }
}

}  // namespace
}  // namespace profdiff::analysis
