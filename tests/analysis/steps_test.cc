// Steps (docs/semantics.md §2), through the profile of a small hand-written
// trace: every expected number is worked out in the comments from the event
// times (µs).
#include "analysis/steps.h"

#include <string>

#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "tests/analysis/fixture_trace.h"

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

}  // namespace
}  // namespace profdiff::analysis
