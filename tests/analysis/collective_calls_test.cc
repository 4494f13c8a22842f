// A worker's collective calls (analysis/collective_calls.h, README.md
// "Communication across ranks") through the profiles of small hand-written
// traces; the expected numbers are worked out in the comments from the event
// times (µs).
#include "analysis/collective_calls.h"

#include <string>

#include <gtest/gtest.h>

#include "analysis/collective_names.h"
#include "analysis/worker_profile.h"
#include "tests/analysis/fixture_trace.h"

namespace profdiff::analysis {
namespace {

using fixture::Profile;

TEST(CollectiveNamesTest, SpellingsMapToOneNameAndItsBusFactor) {
  EXPECT_EQ(CanonicalCollective("allreduce"), "all_reduce");
  EXPECT_EQ(CanonicalCollective("nccl:all_reduce"), "all_reduce");
  EXPECT_EQ(CanonicalCollective("c10d::allreduce_"), "all_reduce");
  EXPECT_EQ(CanonicalCollective("_allgather_base"), "all_gather");
  EXPECT_EQ(CanonicalCollective("c10d::_reduce_scatter_base_"),
            "reduce_scatter");
  EXPECT_EQ(CanonicalCollective("c10d::alltoall_base_"), "all_to_all");
  EXPECT_EQ(CanonicalCollective("gloo:broadcast"), "broadcast");
  EXPECT_EQ(CanonicalCollective("record_param_comms"), "");
  EXPECT_EQ(CanonicalCollective("wait"), "");
  EXPECT_EQ(ElementBytes("Float"), 4);
  EXPECT_EQ(ElementBytes("c10::BFloat16"), 2);
  EXPECT_EQ(ElementBytes("long int"), 8);
  EXPECT_EQ(ElementBytes("Scalar"), 0);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("all_reduce", 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("all_gather", 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("reduce_scatter", 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("broadcast", 4), 1);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor("send", 2), 1);
}

// NCCL: c10d::allreduce_ [10,40] > record_param_comms [12,38] (Kineto's args)
// > nccl:all_reduce [14,36], launching ncclKernel_AllReduce [30,80]; a compute
// kernel [50,70] overlaps it in part. A bare record_param_comms [45,46] (a
// wait) is no call.
constexpr char kNcclTrace[] = R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": 1, "tid": 1, "ts": 10, "dur": 30, "args": {"External id": 1}},
  {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 12, "dur": 26,
   "args": {"External id": 2, "Collective name": "allreduce", "In msg nelems": 1000, "Out msg nelems": 1000,
            "dtype": "Float", "Group size": 4, "Process Group Name": "7", "Process Group Ranks": "[0, 1, 2, 3]"}},
  {"ph": "X", "cat": "user_annotation", "name": "nccl:all_reduce", "pid": 1, "tid": 1, "ts": 14, "dur": 22, "args": {"External id": 3}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 4, "args": {"External id": 2, "correlation": 9}},
  {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 20, "ts": 30, "dur": 50, "args": {"correlation": 9}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 41, "dur": 3, "args": {"External id": 4}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 42, "dur": 1, "args": {"External id": 4, "correlation": 10}},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 50, "dur": 20, "args": {"correlation": 10}},
  {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 45, "dur": 1, "args": {"External id": 5}}]})";

TEST(CollectiveCallsTest, NcclCallTakesKinetoArgumentsAndItsKernelTime) {
  const v1::WorkerProfile p = Profile(kNcclTrace);
  ASSERT_EQ(p.collective_calls_size(), 1);
  const v1::CollectiveCall& c = p.collective_calls(0);
  EXPECT_EQ(c.collective(), "all_reduce");
  EXPECT_EQ(c.process_group(), "7");
  EXPECT_EQ(c.process_group_ranks(), "[0, 1, 2, 3]");
  EXPECT_EQ(c.group_size(), 4);
  EXPECT_EQ(c.dtype(), "Float");
  EXPECT_EQ(c.in_elements(), 1000);
  EXPECT_EQ(c.bytes(), 4000);
  EXPECT_TRUE(c.on_device());
  EXPECT_DOUBLE_EQ(c.duration_us(), 50);  // the kernel, not the host span
  EXPECT_EQ(c.step(), 3);
  EXPECT_EQ(c.step_index(), 0);
  EXPECT_EQ(c.ordinal(), 0);
  // Collective [30,80] less the gemm [50,70]: 30 µs exposed.
  ASSERT_EQ(p.steps_size(), 1);
  EXPECT_DOUBLE_EQ(p.steps(0).collective_us(), 50);
  EXPECT_DOUBLE_EQ(p.steps(0).collective_exposed_us(), 30);
}

// Gloo: the calling thread enqueues c10d::allreduce_ [10,12] (Kineto's args);
// the worker thread runs gloo:all_reduce [15,65] with Input Dims [[250]]
// (float). Meanwhile the calling thread computes aten::mm [20,40] and a
// backward op [50,55]: 25 µs of the 50 overlap, 25 exposed. Then a second
// all_reduce with no enqueue of its own [70,80] and a broadcast [82,84] of two
// long tensors of 3 and 5 elements.
constexpr char kGlooTrace[] = R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#5", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": 1, "tid": 1, "ts": 10, "dur": 2,
   "args": {"Collective name": "allreduce", "Process Group Name": "default_pg", "Group size": 2}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 20},
  {"ph": "X", "cat": "cpu_op", "name": "MmBackward0", "pid": 1, "tid": 1, "ts": 50, "dur": 5},
  {"ph": "X", "cat": "cpu_op", "name": "gloo:all_reduce", "pid": 1, "tid": 2, "ts": 15, "dur": 50,
   "args": {"Input Dims": [[250]], "Input type": ["float"]}},
  {"ph": "X", "cat": "cpu_op", "name": "gloo:all_reduce", "pid": 1, "tid": 2, "ts": 70, "dur": 10,
   "args": {"Input Dims": [[250]], "Input type": ["float"]}},
  {"ph": "X", "cat": "cpu_op", "name": "gloo:broadcast", "pid": 1, "tid": 2, "ts": 82, "dur": 2,
   "args": {"Input Dims": [[3], [5], []], "Input type": ["long int", "long int", "Scalar"]}}],
  "distributedInfo": {"backend": "gloo", "rank": 0, "world_size": 2}})";

TEST(CollectiveCallsTest, GlooWorkerRangeIsTheCallAndTheEnqueueLendsItsArgs) {
  const v1::WorkerProfile p = Profile(kGlooTrace);
  ASSERT_EQ(p.collective_calls_size(), 3);
  const v1::CollectiveCall& first = p.collective_calls(0);
  EXPECT_EQ(first.collective(), "all_reduce");
  EXPECT_EQ(first.process_group(), "default_pg");  // from the enqueue
  EXPECT_EQ(first.group_size(), 2);
  EXPECT_EQ(first.dtype(), "float");
  EXPECT_EQ(first.in_elements(), 250);
  EXPECT_EQ(first.bytes(), 1000);
  EXPECT_FALSE(first.on_device());
  EXPECT_DOUBLE_EQ(first.duration_us(), 50);  // the worker's range
  EXPECT_EQ(first.ordinal(), 0);
  const v1::CollectiveCall& second = p.collective_calls(1);
  EXPECT_EQ(second.process_group(), "");  // nothing to borrow from
  EXPECT_EQ(second.group_size(), 2);      // the world size
  EXPECT_EQ(second.ordinal(), 0);  // another process group: its own count
  const v1::CollectiveCall& broadcast = p.collective_calls(2);
  EXPECT_EQ(broadcast.collective(), "broadcast");
  EXPECT_EQ(broadcast.in_elements(), 8);
  EXPECT_EQ(broadcast.bytes(), 64);
  EXPECT_EQ(broadcast.dtype(), "long int");
  // Step: [15,65] ∪ [70,80] ∪ [82,84] = 62 µs; the calling thread's compute
  // covers [20,40] and [50,55] of the first: 62 - 25 = 37 exposed.
  EXPECT_DOUBLE_EQ(p.steps(0).collective_us(), 62);
  EXPECT_DOUBLE_EQ(p.steps(0).collective_exposed_us(), 37);
}

TEST(CollectiveCallsTest, OrdinalsCountPerStepProcessGroupAndCollective) {
  // Two steps, each with two all_reduces and one broadcast on the host.
  std::string events =
      R"({"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
         {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100})";
  for (int step = 0; step < 2; ++step) {
    for (int k = 0; k < 3; ++k) {
      const int ts = step * 100 + 10 + 20 * k;
      events += ",{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" +
                std::string(k == 1 ? "c10d::broadcast_" : "c10d::allreduce_") +
                "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(ts) +
                ", \"dur\": 5}";
    }
  }
  const v1::WorkerProfile p = Profile("{\"traceEvents\": [" + events + "]}");
  ASSERT_EQ(p.collective_calls_size(), 6);
  const int expected_ordinal[] = {0, 0, 1, 0, 0, 1};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(p.collective_calls(i).ordinal(), expected_ordinal[i]) << i;
    EXPECT_EQ(p.collective_calls(i).step(), i < 3 ? 1 : 2) << i;
  }
}

}  // namespace
}  // namespace profdiff::analysis
