// The step breakdown (docs/semantics.md §3), through the profile of a small
// hand-written trace: every expected number is worked out in the comments from
// the event times (µs).
#include "analysis/step_breakdown.h"

#include <string>

#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "tests/analysis/fixture_trace.h"

namespace profdiff::analysis {
namespace {

using fixture::Fixture;
using fixture::Profile;

TEST(StepBreakdownTest, C10dCollectivesAreCommunicationOtherC10dOpsAreNot) {
  // c10d::allreduce_ [0,20] launches reduce_kernel [10,30] (no "nccl" in its
  // name); a c10d::broadcast_ on the host [40,50]; c10d::some_helper [50,55] is
  // no collective.
  const v1::WorkerProfile p = Profile(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 60},
    {"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": 1, "tid": 1, "ts": 0, "dur": 20, "args": {"External id": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 2, "args": {"External id": 1, "correlation": 5}},
    {"ph": "X", "cat": "kernel", "name": "reduce_kernel", "pid": 0, "tid": 7, "ts": 10, "dur": 20, "args": {"correlation": 5}},
    {"ph": "X", "cat": "cpu_op", "name": "c10d::broadcast_", "pid": 1, "tid": 1, "ts": 40, "dur": 10},
    {"ph": "X", "cat": "cpu_op", "name": "c10d::some_helper", "pid": 1, "tid": 1, "ts": 50, "dur": 5}]})");
  ASSERT_EQ(p.steps_size(), 1);
  EXPECT_DOUBLE_EQ(p.steps(0).kernel_us(), 0);
  EXPECT_DOUBLE_EQ(p.steps(0).communication_us(), 40);  // [0,30] and [40,50]
  EXPECT_DOUBLE_EQ(p.steps(0).cpu_exec_us(), 5);        // the helper
}

TEST(StepBreakdownTest, RolesTakeTimeInPriorityOrderAndSumToTheStep) {
  const v1::WorkerProfile p = Profile(Fixture(/*with_memset=*/true));
  // Step 1 [0,104): kernel [45,95]=50; memcpy [96,104]=8; runtime [30,40] (the
  // memcpy call [66,70] lies under the kernel)=10; dataloader [5,20]=15; cpu
  // exec = [20,60]∪[65,75] minus taken = [20,30]+[40,45] = 15; other =
  // [0,5]+[95,96] = 6.
  const v1::StepStats& s1 = p.steps(0);
  EXPECT_DOUBLE_EQ(s1.kernel_us(), 50);
  EXPECT_DOUBLE_EQ(s1.memcpy_us(), 8);
  EXPECT_DOUBLE_EQ(s1.memset_us(), 0);
  EXPECT_DOUBLE_EQ(s1.communication_us(), 0);
  EXPECT_DOUBLE_EQ(s1.runtime_us(), 10);
  EXPECT_DOUBLE_EQ(s1.dataloader_us(), 15);
  EXPECT_DOUBLE_EQ(s1.cpu_exec_us(), 15);
  EXPECT_DOUBLE_EQ(s1.other_us(), 6);
  // Step 2 [104,170): kernel [130,170]=40; memset [125,128]=3; runtime
  // [112,117]+[120,123]=8; cpu exec = mm [110,130] minus runtime and memset =
  // 20-5-3-3 = 9; other = [104,110] = 6.
  const v1::StepStats& s2 = p.steps(1);
  EXPECT_DOUBLE_EQ(s2.kernel_us(), 40);
  EXPECT_DOUBLE_EQ(s2.memset_us(), 3);
  EXPECT_DOUBLE_EQ(s2.runtime_us(), 8);
  EXPECT_DOUBLE_EQ(s2.cpu_exec_us(), 9);
  EXPECT_DOUBLE_EQ(s2.other_us(), 6);
  // Run value: mean over kept steps.
  EXPECT_DOUBLE_EQ(p.average_step().duration_us(), (104 + 66) / 2.0);
  EXPECT_DOUBLE_EQ(p.average_step().kernel_us(), (50 + 40) / 2.0);
  EXPECT_DOUBLE_EQ(p.average_step().other_us(), 6);
}

TEST(StepBreakdownTest, CollectiveOpsAndNcclKernelsAreCommunication) {
  // nccl:all_reduce [0,20] launches ncclKernel [10,30]; gloo op [40,50]; step
  // [0,60].
  const v1::WorkerProfile p = Profile(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 60},
    {"ph": "X", "cat": "cpu_op", "name": "nccl:all_reduce", "pid": 1, "tid": 1, "ts": 0, "dur": 20, "args": {"External id": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 2, "args": {"External id": 1, "correlation": 5}},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 7, "ts": 10, "dur": 20, "args": {"correlation": 5}},
    {"ph": "X", "cat": "cpu_op", "name": "gloo:all_reduce", "pid": 1, "tid": 1, "ts": 40, "dur": 10}]})");
  ASSERT_EQ(p.steps_size(), 1);
  // Communication = kernel [10,30] ∪ host ops [0,20],[40,50] minus nothing
  // higher = 30 + 10 (the runtime [2,4] lies under the collective op, which
  // ranks higher) ; other = [30,40]+[50,60].
  EXPECT_DOUBLE_EQ(p.steps(0).kernel_us(), 0);
  EXPECT_DOUBLE_EQ(p.steps(0).communication_us(), 40);
  EXPECT_DOUBLE_EQ(p.steps(0).runtime_us(), 0);
  EXPECT_DOUBLE_EQ(p.steps(0).other_us(), 20);
  ASSERT_EQ(p.communication_size(), 2);
}

}  // namespace
}  // namespace profdiff::analysis
