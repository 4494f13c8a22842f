// The operator view (docs/semantics.md §5), through the profile of a small
// hand-written trace: every expected number is worked out in the comments from
// the event times (µs).
#include "analysis/operator_view.h"

#include <string>

#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "tests/analysis/fixture_trace.h"

namespace profdiff::analysis {
namespace {

using fixture::FindOperator;
using fixture::Fixture;
using fixture::Profile;

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

}  // namespace
}  // namespace profdiff::analysis
