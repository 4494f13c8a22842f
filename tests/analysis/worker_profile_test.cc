// SEMANTICS.md §2-§5 and §7 on a small hand-written trace. Every expected
// number is worked out in the comments from the event times below (µs).
#include "analysis/worker_profile.h"

#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trace/kineto_reader.h"

namespace profdiff::analysis {
namespace {

// Host thread (pid 1, tid 1):
//   ProfilerStep#1 [0,100]
//     enumerate(DataLoader)#...__next__ [5,20]
//     aten::conv2d [20,60] (ext 10)
//       aten::convolution [25,55] (ext 11)
//         cudaLaunchKernel [30,40] corr 100 -> conv_kernel [45,95]  (blocks/SM
//         0.5, occ 40)
//     aten::add [65,75] (ext 12)
//       cudaMemcpyAsync [66,70] corr 101 -> memcpy [96,104]
//   ProfilerStep#2 [100,150]
//     aten::mm [110,130] (ext 13)
//       cudaLaunchKernel [112,117] corr 102 -> mm_kernel [130,170] (blocks/SM
//       2, occ 60) cudaMemsetAsync [120,123] corr 103 -> memset [125,128]
//       (omitted by kSingleStepMm)
//   ProfilerStep#3 [150,160]   no device work
// Memory (cuda:0): allocated 100 at t=10, 300 at t=110, 50 at t=160.
std::string Fixture(bool with_memset) {
  std::string events = R"(
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": 5, "dur": 15},
    {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 20, "dur": 40, "args": {"External id": 10}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::convolution", "pid": 1, "tid": 1, "ts": 25, "dur": 30, "args": {"External id": 11}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 10, "args": {"External id": 11, "correlation": 100}},
    {"ph": "X", "cat": "kernel", "name": "conv_kernel", "pid": 0, "tid": 7, "ts": 45, "dur": 50,
     "args": {"correlation": 100, "device": 0, "stream": 7, "blocks per SM": 0.5, "est. achieved occupancy %": 40}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 65, "dur": 10, "args": {"External id": 12}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 66, "dur": 4, "args": {"External id": 12, "correlation": 101}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "pid": 0, "tid": 7, "ts": 96, "dur": 8, "args": {"correlation": 101, "device": 0}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 110, "dur": 20, "args": {"External id": 13}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 112, "dur": 5, "args": {"External id": 13, "correlation": 102}},
    {"ph": "X", "cat": "kernel", "name": "mm_kernel", "pid": 0, "tid": 7, "ts": 130, "dur": 40,
     "args": {"correlation": 102, "device": 0, "stream": 7, "blocks per SM": 2, "est. achieved occupancy %": 60}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 150, "dur": 10},
    {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 10, "args": {"Total Allocated": 100, "Total Reserved": 512, "Device Type": 1, "Device Id": 0}},
    {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 110, "args": {"Total Allocated": 300, "Total Reserved": 1024, "Device Type": 1, "Device Id": 0}},
    {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 160, "args": {"Total Allocated": 50, "Total Reserved": 1024, "Device Type": 1, "Device Id": 0}})";
  if (with_memset) {
    events += R"(,
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync", "pid": 1, "tid": 1, "ts": 120, "dur": 3, "args": {"External id": 13, "correlation": 103}},
    {"ph": "X", "cat": "gpu_memset", "name": "Memset Device", "pid": 0, "tid": 7, "ts": 125, "dur": 3, "args": {"correlation": 103, "device": 0}})";
  }
  return R"({"deviceProperties": [{"id": 0, "name": "Test GPU", "totalGlobalMem": 1073741824}],
             "traceEvents": [)" +
         events + "]}";
}

v1::WorkerProfile Profile(const std::string& json,
                          ProfileOptions options = {}) {
  absl::StatusOr<trace::Trace> trace =
      trace::ReadKinetoTrace(json, "fixture.json");
  EXPECT_TRUE(trace.ok()) << trace.status();
  return BuildWorkerProfile(*trace, {"run", "worker0", 1}, options);
}

const v1::OperatorStats* FindOperator(const v1::WorkerProfile& p,
                                      std::string_view name) {
  for (const auto& row : p.operators()) {
    if (row.name() == name) return &row;
  }
  return nullptr;
}

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

TEST(GpuMetricsTest, UtilizationSmEfficiencyAndOccupancy) {
  const v1::WorkerProfile p = Profile(Fixture(/*with_memset=*/true));
  ASSERT_EQ(p.devices_size(), 1);
  // Span [0,170): kernels [45,95] and [130,170] -> 90 busy.
  EXPECT_DOUBLE_EQ(p.devices(0).gpu_utilization(), 90.0 / 170.0);
  // min(0.5,1)·50 + min(2,1)·40 = 65.
  EXPECT_DOUBLE_EQ(p.devices(0).sm_efficiency(), 65.0 / 170.0);
  // (40·50 + 60·40) / 90.
  EXPECT_DOUBLE_EQ(p.devices(0).achieved_occupancy_pct(), 4400.0 / 90.0);
  EXPECT_DOUBLE_EQ(p.gpu_utilization(), 90.0 / 170.0);
}

TEST(OperatorViewTest, SelfAndTotalTimes) {
  const v1::WorkerProfile p = Profile(Fixture(/*with_memset=*/true));
  const auto* conv2d = FindOperator(p, "aten::conv2d");
  ASSERT_NE(conv2d, nullptr);
  EXPECT_EQ(conv2d->calls(), 1);
  EXPECT_DOUBLE_EQ(conv2d->host_total_us(), 40);
  EXPECT_DOUBLE_EQ(conv2d->host_self_us(), 10);  // 40 - convolution 30
  EXPECT_DOUBLE_EQ(conv2d->device_self_us(), 0);
  EXPECT_DOUBLE_EQ(conv2d->device_total_us(), 50);  // its child's kernel
  const auto* convolution = FindOperator(p, "aten::convolution");
  EXPECT_DOUBLE_EQ(convolution->host_self_us(), 20);  // 30 - its launch 10
  EXPECT_DOUBLE_EQ(convolution->device_self_us(), 50);
  const auto* mm = FindOperator(p, "aten::mm");
  EXPECT_DOUBLE_EQ(mm->host_self_us(), 12);    // 20 - 5 - 3
  EXPECT_DOUBLE_EQ(mm->device_self_us(), 43);  // kernel 40 + memset 3
  EXPECT_EQ(FindOperator(p, "ProfilerStep#1"), nullptr);
  // Sorted by device total: conv2d and convolution (50) before mm (43).
  EXPECT_EQ(p.operators(0).device_total_us(), 50);
}

TEST(OperatorViewTest, AnOnlyChildOfTheSameNameIsOneCallWithItsParent) {
  // aten::div [0,40] > aten::div [5,35] > aten::div [10,30] > cudaLaunchKernel
  // [12,14] -> k [50,60]: one call (torch's _remove_dup_nodes). aten::add
  // [50,90] has two aten::add children: three calls.
  const v1::WorkerProfile p = Profile(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::div", "pid": 1, "tid": 1, "ts": 0, "dur": 40},
    {"ph": "X", "cat": "cpu_op", "name": "aten::div", "pid": 1, "tid": 1, "ts": 5, "dur": 30},
    {"ph": "X", "cat": "cpu_op", "name": "aten::div", "pid": 1, "tid": 1, "ts": 10, "dur": 20, "args": {"External id": 3}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 2, "args": {"External id": 3, "correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 50, "dur": 10, "args": {"correlation": 9}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 50, "dur": 40},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 55, "dur": 10},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 70, "dur": 10}]})");
  std::map<std::string, const v1::OperatorStats*> rows;
  for (const v1::OperatorStats& row : p.operators()) rows[row.name()] = &row;
  ASSERT_TRUE(rows.contains("aten::div") && rows.contains("aten::add"));
  const v1::OperatorStats& div = *rows["aten::div"];
  EXPECT_EQ(div.calls(), 1);
  EXPECT_DOUBLE_EQ(div.host_total_us(), 40);
  EXPECT_DOUBLE_EQ(div.host_self_us(), 38);  // minus its (merged) runtime call
  EXPECT_DOUBLE_EQ(div.device_self_us(), 10);  // the kernel is its own
  EXPECT_EQ(rows["aten::add"]->calls(), 3);
}

TEST(OperatorViewTest, SiblingsRoundedIntoNestingAreNotMerged) {
  // Whole-microsecond legacy trace: two aten::resolve_conj calls of length 0 at
  // one time, and one starting where a 1 us one ends, nest by time but are
  // siblings: four calls.
  const v1::WorkerProfile p = Profile(R"([
    {"ph": "X", "name": "aten::mm", "pid": "CPU functions", "tid": 1, "ts": 0, "dur": 10},
    {"ph": "X", "name": "aten::resolve_conj", "pid": "CPU functions", "tid": 1, "ts": 2, "dur": 0},
    {"ph": "X", "name": "aten::resolve_conj", "pid": "CPU functions", "tid": 1, "ts": 2, "dur": 0},
    {"ph": "X", "name": "aten::t", "pid": "CPU functions", "tid": 1, "ts": 5, "dur": 1},
    {"ph": "X", "name": "aten::t", "pid": "CPU functions", "tid": 1, "ts": 6, "dur": 0}])");
  for (const v1::OperatorStats& row : p.operators()) {
    if (row.name() == "aten::resolve_conj" || row.name() == "aten::t")
      EXPECT_EQ(row.calls(), 2) << row.name();
  }
}

TEST(OperatorViewTest, GroupsByInputShapes) {
  const v1::WorkerProfile p =
      Profile(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 2, "args": {"Input Dims": [[2, 3], [3, 4]]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 3, "args": {"Input Dims": [[2,3],[3,4]]}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 7, "args": {"Input Dims": [[8, 8], [8, 8]]}}]})",
              {OperatorGrouping::kNameAndShape, KernelGrouping::kName, true});
  ASSERT_EQ(p.operators_size(), 2);
  EXPECT_EQ(p.operators(0).input_shapes(),
            "[[8,8],[8,8]]");  // 7 µs sorts first
  EXPECT_EQ(p.operators(1).calls(), 2);
  EXPECT_DOUBLE_EQ(p.operators(1).host_total_us(), 5);
}

TEST(OperatorViewTest, UnmatchedExternalIdFallsBackToEnclosingOperator) {
  // torch ~1.12: the runtime's External id equals its own correlation and names
  // no operator.
  const v1::WorkerProfile p = Profile(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 0, "dur": 10, "args": {"External id": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 3, "args": {"External id": 77, "correlation": 77}},
    {"ph": "X", "cat": "kernel", "name": "relu_kernel", "pid": 0, "tid": 7, "ts": 6, "dur": 4, "args": {"correlation": 77}}]})");
  EXPECT_EQ(p.runtime_linking(), v1::RUNTIME_LINKING_CONTAINMENT);
  EXPECT_EQ(p.runtime_calls_linked_by_containment(), 1);
  EXPECT_DOUBLE_EQ(FindOperator(p, "aten::relu")->device_self_us(), 4);
}

TEST(OperatorViewTest,
     WholeMicrosecondTracesNestAChildEndingOneMicrosecondLate) {
  // From a torch 1.13 CPU trace: start and duration are rounded to whole
  // microseconds on their own, so _slow_conv2d_forward ends 1 us after
  // thnn_conv2d, which holds it. Strict containment would make it
  // _convolution's child and that node's self time -2653 us.
  const std::string events = R"(
    {"ph": "X", "cat": "cpu_op", "name": "aten::_convolution", "pid": 1, "tid": 1, "ts": 1837278, "dur": 2665},
    {"ph": "X", "cat": "cpu_op", "name": "aten::thnn_conv2d", "pid": 1, "tid": 1, "ts": 1837281, "dur": 2660},
    {"ph": "X", "cat": "cpu_op", "name": "aten::_slow_conv2d_forward", "pid": 1, "tid": 1, "ts": 1837284, "dur": 2658},
    {"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 1839943, "dur": 1})";
  const v1::WorkerProfile p = Profile(R"({"traceEvents": [)" + events + "]}");
  EXPECT_DOUBLE_EQ(FindOperator(p, "aten::_convolution")->host_self_us(),
                   2665 - 2660);
  EXPECT_DOUBLE_EQ(FindOperator(p, "aten::thnn_conv2d")->host_self_us(),
                   2660 - 2658);
  // A sibling that starts when _convolution has ended is not pulled inside.
  EXPECT_DOUBLE_EQ(FindOperator(p, "aten::empty")->host_self_us(), 1);
  // A child nested by the slack does not pull its parent's next sibling inside
  // it.
  const v1::WorkerProfile next = Profile(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "P", "pid": 1, "tid": 1, "ts": 100, "dur": 10},
    {"ph": "X", "cat": "cpu_op", "name": "C", "pid": 1, "tid": 1, "ts": 105, "dur": 6},
    {"ph": "X", "cat": "cpu_op", "name": "D", "pid": 1, "tid": 1, "ts": 110, "dur": 2}]})");
  EXPECT_DOUBLE_EQ(FindOperator(next, "C")->host_self_us(), 6);
  EXPECT_DOUBLE_EQ(FindOperator(next, "P")->host_self_us(), 4);
  // With nanosecond times, containment is exact: the same child 1 ns late is a
  // sibling.
  const v1::WorkerProfile exact = Profile(R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::thnn_conv2d", "pid": 1, "tid": 1, "ts": 10.000, "dur": 20.000},
    {"ph": "X", "cat": "cpu_op", "name": "aten::_slow_conv2d_forward", "pid": 1, "tid": 1, "ts": 12.500, "dur": 17.501}]})");
  EXPECT_DOUBLE_EQ(FindOperator(exact, "aten::thnn_conv2d")->host_self_us(),
                   20);
}

TEST(KernelViewTest, StatsByNameAndByLaunchingOp) {
  const v1::WorkerProfile p =
      Profile(Fixture(true),
              {OperatorGrouping::kName, KernelGrouping::kNameAndOp, true});
  ASSERT_EQ(p.kernels_size(), 2);
  EXPECT_EQ(p.kernels(0).name(), "conv_kernel");
  EXPECT_EQ(p.kernels(0).op_name(), "aten::convolution");
  EXPECT_DOUBLE_EQ(p.kernels(0).total_us(), 50);
  EXPECT_DOUBLE_EQ(p.kernels(0).blocks_per_sm(), 0.5);
  EXPECT_EQ(p.kernels(1).op_name(), "aten::mm");
  EXPECT_DOUBLE_EQ(p.kernels(1).achieved_occupancy_pct(), 60);
}

TEST(ModuleTreeTest, OperatorTreeInSourceOrderWithDeviceTime) {
  const v1::WorkerProfile p = Profile(Fixture(true));
  EXPECT_EQ(p.module_source(), v1::MODULE_TREE_SOURCE_OPERATORS);
  const v1::ModuleNode& root = p.modules();
  ASSERT_EQ(root.children_size(), 4);
  EXPECT_THAT(root.children(0).name(),
              testing::StartsWith("enumerate(DataLoader)"));
  EXPECT_EQ(root.children(1).name(), "aten::conv2d");
  EXPECT_EQ(root.children(2).name(), "aten::add");
  EXPECT_EQ(root.children(3).name(), "aten::mm");
  const v1::ModuleNode& conv2d = root.children(1);
  EXPECT_DOUBLE_EQ(conv2d.host_us(), 40);
  EXPECT_DOUBLE_EQ(conv2d.host_self_us(), 10);
  EXPECT_DOUBLE_EQ(conv2d.device_us(), 50);
  EXPECT_DOUBLE_EQ(conv2d.device_self_us(), 0);
  EXPECT_DOUBLE_EQ(conv2d.compare_us(),
                   50);  // device time where it ran device work
  EXPECT_EQ(conv2d.children(0).path(), "aten::conv2d/aten::convolution");
  EXPECT_DOUBLE_EQ(root.children(0).compare_us(), 15);  // host time otherwise
}

TEST(ModuleTreeTest, NnModulesMergeByPathAcrossCalls) {
  // Two steps each call Net_0 -> Linear_0, Linear_1; Linear_0 launches a 5 µs
  // kernel each time.
  std::string events;
  for (int step = 0; step < 2; ++step) {
    const int t0 = step * 100;
    const int corr = 10 + step;
    events +=
        R"({"ph": "X", "cat": "python_function", "name": "nn.Module: Net_0", "pid": 1, "tid": 1, "ts": )" +
        std::to_string(t0) + R"(, "dur": 50},
      {"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 1, "tid": 1, "ts": )" +
        std::to_string(t0 + 5) + R"(, "dur": 20},
      {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": )" +
        std::to_string(t0 + 6) + R"(, "dur": 10, "args": {"External id": )" +
        std::to_string(corr) + R"(}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )" +
        std::to_string(t0 + 7) + R"(, "dur": 2, "args": {"External id": )" +
        std::to_string(corr) + R"(, "correlation": )" + std::to_string(corr) +
        R"(}},
      {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": )" +
        std::to_string(t0 + 30) + R"(, "dur": 5, "args": {"correlation": )" +
        std::to_string(corr) + R"(}},
      {"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_1", "pid": 1, "tid": 1, "ts": )" +
        std::to_string(t0 + 30) + R"(, "dur": 10})";
    if (step == 0) events += ",";
  }
  const v1::WorkerProfile p = Profile(R"({"traceEvents": [)" + events + "]}");
  EXPECT_EQ(p.module_source(), v1::MODULE_TREE_SOURCE_PYTHON_MODULES);
  ASSERT_EQ(p.modules().children_size(), 1);
  const v1::ModuleNode& net = p.modules().children(0);
  EXPECT_EQ(net.name(), "Net_0");
  EXPECT_EQ(net.calls(), 2);
  EXPECT_DOUBLE_EQ(net.host_us(), 100);
  EXPECT_DOUBLE_EQ(net.host_self_us(), 100 - 2 * 20 - 2 * 10);
  EXPECT_DOUBLE_EQ(net.device_us(), 10);
  ASSERT_EQ(net.children_size(), 2);
  const v1::ModuleNode& linear0 = net.children(0);
  EXPECT_EQ(linear0.path(), "Net_0/Linear_0");
  EXPECT_EQ(linear0.calls(), 2);
  EXPECT_DOUBLE_EQ(linear0.device_us(), 10);
  EXPECT_DOUBLE_EQ(linear0.device_union_us(), 10);
  ASSERT_EQ(linear0.operators_size(), 1);
  EXPECT_EQ(linear0.operators(0).name(), "aten::linear");
  EXPECT_EQ(linear0.operators(0).calls(), 2);
  ASSERT_EQ(linear0.kernels_size(), 1);
  EXPECT_EQ(linear0.kernels(0).calls(), 2);
  EXPECT_EQ(net.children(1).name(), "Linear_1");
  EXPECT_DOUBLE_EQ(net.children(1).compare_us(),
                   20);  // no device work: host time
}

TEST(MemoryViewTest, PeakAndTimeWeightedAverage) {
  const v1::WorkerProfile p = Profile(Fixture(true));
  ASSERT_EQ(p.memory_size(), 1);
  EXPECT_EQ(p.memory(0).device(), "cuda:0");
  EXPECT_EQ(p.memory(0).peak_allocated_bytes(), 300);
  EXPECT_EQ(p.memory(0).peak_reserved_bytes(), 1024);
  // 100 for 100 µs, then 300 for 50 µs, over [10,160].
  EXPECT_DOUBLE_EQ(p.memory(0).average_allocated_bytes(),
                   (100.0 * 100 + 300.0 * 50) / 150);
}

}  // namespace
}  // namespace profdiff::analysis
