// A worker's memory (analysis/memory_events.h, memory_view.h, memory_tables.h)
// through the profiles of small hand-written traces; the expected numbers are
// worked out in the comments from the events (times in µs, sizes in bytes).
#include "analysis/memory_view.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "tests/analysis/fixture_trace.h"

namespace profdiff::analysis {
namespace {

using fixture::Fixture;
using fixture::Profile;

TEST(MemoryViewTest, PeakAndTimeWeightedAverage) {
  const v1::WorkerProfile p = Profile(Fixture(true));
  ASSERT_EQ(p.memory_size(), 1);
  EXPECT_EQ(p.memory(0).device(), "cuda:0");
  EXPECT_EQ(p.memory(0).peak_allocated_bytes(), 300);
  EXPECT_EQ(p.memory(0).peak_reserved_bytes(), 1024);
  // The events at 10 and 110 lie in ProfilerStep#1 and #2's host ranges; the
  // one at 160 only in #2's device extension (to 170), and the allocator is on
  // the host (issue 44): 100 for 100 µs over [10,110].
  EXPECT_EQ(p.memory(0).event_count(), 2);
  EXPECT_DOUBLE_EQ(p.memory(0).average_allocated_bytes(), 100.0 * 100 / 100);
}

TEST(MemoryViewTest, RocmHipDevicesAreCudaAsTorchNamesThem) {
  // Device Type 6 (c10::DeviceType::HIP) is what an MI300 trace records.
  const v1::WorkerProfile p = Profile(R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 5, "args": {"Device Type": 6, "Device Id": 0, "Addr": 4, "Bytes": 10, "Total Allocated": 10, "Total Reserved": 20}}]})");
  ASSERT_EQ(p.memory_size(), 1);
  EXPECT_EQ(p.memory(0).device(), "cuda:0");
  EXPECT_EQ(p.memory(0).peak_allocated_bytes(), 10);
}

// Thread 1:
//   ProfilerStep#1 [0,100]:  aten::linear [10,50] > aten::addmm [12,30];
//   aten::relu [55,70] ProfilerStep#2 [100,200]: aten::linear [110,150] >
//   aten::addmm [112,130]
// CPU memory (address: bytes, total allocated after):
//   5  a4 +10    10   outside every operator
//   15 a1 +1000  1010 addmm
//   30 a3 +50    1060 linear: at addmm's end, and intervals are [start, end)
//   32 a4 -10    1050 linear (frees the block allocated outside operators)
//   35 a2 +200   1250 linear
//   60 a1 -1000  250  relu (frees addmm's block)
//   115 a5 +2000 2250 addmm, the peak (reserved 4096 from here)
//   140 a5 -2000 250  linear, after its addmm ended
// CUDA memory: 16 a9 +512 (512) in the first addmm.
constexpr char kMemoryTrace[] = R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 10, "dur": 40},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 12, "dur": 18},
  {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 55, "dur": 15},
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 110, "dur": 40},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 112, "dur": 18},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 5, "args": {"Device Type": 0, "Device Id": -1, "Addr": 4, "Bytes": 10, "Total Allocated": 10, "Total Reserved": 2048}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 15, "args": {"Device Type": 0, "Device Id": -1, "Addr": 1, "Bytes": 1000, "Total Allocated": 1010, "Total Reserved": 2048}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 16, "args": {"Device Type": 1, "Device Id": 0, "Addr": 9, "Bytes": 512, "Total Allocated": 512, "Total Reserved": 1024}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 32, "args": {"Device Type": 0, "Device Id": -1, "Addr": 4, "Bytes": -10, "Total Allocated": 1050, "Total Reserved": 2048}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 30, "args": {"Device Type": 0, "Device Id": -1, "Addr": 3, "Bytes": 50, "Total Allocated": 1060, "Total Reserved": 2048}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 35, "args": {"Device Type": 0, "Device Id": -1, "Addr": 2, "Bytes": 200, "Total Allocated": 1250, "Total Reserved": 2048}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 60, "args": {"Device Type": 0, "Device Id": -1, "Addr": 1, "Bytes": -1000, "Total Allocated": 250, "Total Reserved": 2048}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 115, "args": {"Device Type": 0, "Device Id": -1, "Addr": 5, "Bytes": 2000, "Total Allocated": 2250, "Total Reserved": 4096}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 140, "args": {"Device Type": 0, "Device Id": -1, "Addr": 5, "Bytes": -2000, "Total Allocated": 250, "Total Reserved": 4096}}]})";

const v1::OperatorMemory* FindRow(const v1::WorkerProfile& p,
                                  const std::string& name,
                                  const std::string& device) {
  for (const v1::OperatorMemory& row : p.operator_memory()) {
    if (row.name() == name && row.device() == device) return &row;
  }
  return nullptr;
}

const v1::MemoryStats* FindDevice(const v1::WorkerProfile& p,
                                  const std::string& device) {
  for (const v1::MemoryStats& m : p.memory()) {
    if (m.device() == device) return &m;
  }
  return nullptr;
}

TEST(MemoryTablesTest,
     EventsBelongToTheInnermostOperatorWithChildrenSummedAbove) {
  const v1::WorkerProfile p = Profile(kMemoryTrace);
  EXPECT_EQ(p.memory_source(), v1::MEMORY_SOURCE_EVENTS);
  const v1::OperatorMemory* addmm = FindRow(p, "aten::addmm", "cpu");
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->calls(), 2);
  EXPECT_EQ(addmm->self_allocation_count(), 2);
  EXPECT_EQ(addmm->self_allocation_bytes(), 3000);
  EXPECT_EQ(addmm->self_increase_bytes(), 3000);
  EXPECT_EQ(addmm->allocation_bytes(), 3000);
  const v1::OperatorMemory* linear = FindRow(p, "aten::linear", "cpu");
  ASSERT_NE(linear, nullptr);
  // Self: +50 and +200 allocated; -10 + 50 + 200 - 2000.
  EXPECT_EQ(linear->self_allocation_count(), 2);
  EXPECT_EQ(linear->self_allocation_bytes(), 250);
  EXPECT_EQ(linear->self_increase_bytes(), -1760);
  // With its addmm children: 4 allocations, 3250 bytes, -1760 + 3000.
  EXPECT_EQ(linear->allocation_count(), 4);
  EXPECT_EQ(linear->allocation_bytes(), 3250);
  EXPECT_EQ(linear->increase_bytes(), 1240);
  ASSERT_EQ(linear->step_samples_size(), 2);
  EXPECT_EQ(linear->step_samples(0).allocation_bytes(), 250);
  EXPECT_EQ(linear->step_samples(0).self_increase_bytes(), 240);
  EXPECT_EQ(linear->step_samples(1).allocation_bytes(), 0);
  EXPECT_EQ(linear->step_samples(1).self_increase_bytes(), -2000);
  EXPECT_EQ(linear->step_samples(1).total_allocation_bytes(), 2000);
  // A free is a negative size: relu allocated nothing and freed addmm's block.
  const v1::OperatorMemory* relu = FindRow(p, "aten::relu", "cpu");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->self_allocation_count(), 0);
  EXPECT_EQ(relu->self_increase_bytes(), -1000);
  // The event outside every operator is in no row; ProfilerStep is no row.
  EXPECT_EQ(FindRow(p, "ProfilerStep#1", "cpu"), nullptr);
  // The CUDA event is the device's own row.
  const v1::OperatorMemory* cuda = FindRow(p, "aten::addmm", "cuda:0");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->self_allocation_bytes(), 512);
  EXPECT_EQ(FindRow(p, "aten::linear", "cuda:0")->allocation_bytes(), 512);
}

TEST(MemoryViewTest, PeakIsAllocatedNotReservedWithItsOperatorAndWhatWasAlive) {
  const v1::WorkerProfile p = Profile(kMemoryTrace);
  ASSERT_EQ(p.memory_size(), 2);
  EXPECT_EQ(p.memory(0).device(), "cpu");
  EXPECT_EQ(p.memory(1).device(), "cuda:0");
  const v1::MemoryStats& cpu = *FindDevice(p, "cpu");
  EXPECT_EQ(cpu.peak_allocated_bytes(), 2250);
  EXPECT_EQ(cpu.peak_reserved_bytes(), 4096);
  EXPECT_EQ(cpu.event_count(), 8);
  EXPECT_FALSE(cpu.allocated_from_bytes());
  EXPECT_EQ(cpu.peak_operator(), "aten::addmm");
  EXPECT_EQ(cpu.peak_module(), "aten::linear/aten::addmm");
  EXPECT_EQ(cpu.peak_step_index(), 1);
  EXPECT_EQ(cpu.peak_offset_ns(), 115000);
  ASSERT_EQ(cpu.curve_size(), 8);
  EXPECT_EQ(cpu.curve(6).allocated_bytes(), 2250);
  EXPECT_EQ(cpu.curve(6).reserved_bytes(), 4096);
  // Alive at 115: a5 (addmm), a2 and a3 (linear); a4 was freed by linear and a1
  // by relu, matched by address across operators.
  ASSERT_EQ(cpu.peak_holders_size(), 2);
  EXPECT_EQ(cpu.peak_holders(0).operator_name(), "aten::addmm");
  EXPECT_EQ(cpu.peak_holders(0).bytes(), 2000);
  EXPECT_EQ(cpu.peak_holders(0).blocks(), 1);
  EXPECT_EQ(cpu.peak_holders(1).operator_name(), "aten::linear");
  EXPECT_EQ(cpu.peak_holders(1).bytes(), 250);
  EXPECT_EQ(cpu.peak_holders(1).blocks(), 2);
  const v1::MemoryStats& cuda = *FindDevice(p, "cuda:0");
  EXPECT_EQ(cuda.peak_allocated_bytes(), 512);
  EXPECT_EQ(cuda.peak_reserved_bytes(), 1024);
}

TEST(MemoryTablesTest, ModuleNodesHoldTheirOperatorsMemoryAndPeak) {
  const v1::WorkerProfile p = Profile(kMemoryTrace);
  const v1::ModuleMemory* linear = nullptr;
  for (const v1::ModuleMemory& row : p.module_memory()) {
    if (row.path() == "aten::linear" && row.device() == "cpu") linear = &row;
  }
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->allocation_count(), 4);
  EXPECT_EQ(linear->allocation_bytes(), 3250);
  EXPECT_EQ(linear->increase_bytes(), 1240);
  EXPECT_EQ(linear->peak_allocated_bytes(), 2250);
  ASSERT_EQ(linear->step_samples_size(), 2);
  EXPECT_EQ(linear->step_samples(0).allocation_bytes(), 1250);
}

// Traces before ~2021-07 carry no "Total Allocated": allocated is the running
// sum of Bytes.
TEST(MemoryViewTest, WithoutTotalAllocatedTheRunningSumOfBytesIsTheCurve) {
  const v1::WorkerProfile p = Profile(R"({"traceEvents": [
  {"ph": "X", "cat": "Operator", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "Operator", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 10, "dur": 10},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 12, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 300}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 13, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 200}},
  {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 30, "args": {"Device Type": 1, "Device Id": 0, "Bytes": -300}}]})");
  ASSERT_EQ(p.memory_size(), 1);
  EXPECT_TRUE(p.memory(0).allocated_from_bytes());
  EXPECT_EQ(p.memory(0).peak_allocated_bytes(), 500);
  EXPECT_EQ(p.memory(0).peak_operator(), "aten::empty");
  EXPECT_EQ(p.memory(0).peak_holders_size(), 0);  // no addresses
  ASSERT_EQ(p.operator_memory_size(), 1);
  EXPECT_EQ(p.operator_memory(0).self_allocation_count(), 2);
  EXPECT_EQ(p.operator_memory(0).self_allocation_bytes(), 500);
}

// The legacy profiler writes no memory events: train.py's "Self CPU Memory
// Usage" args are the operators' self increase on the CPU.
TEST(MemoryTablesTest, SelfCpuMemoryUsageArgsAreTheSelfIncreaseWithoutEvents) {
  const v1::WorkerProfile p = Profile(R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 10, "dur": 40, "args": {"Self CPU Memory Usage": 0}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 12, "dur": 18, "args": {"Self CPU Memory Usage": 4096}},
  {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 55, "dur": 15, "args": {"Self CPU Memory Usage": -1024}}]})");
  EXPECT_EQ(p.memory_source(), v1::MEMORY_SOURCE_SELF_CPU_MEMORY_USAGE);
  EXPECT_EQ(p.memory_size(), 0);  // no curve without events
  const v1::OperatorMemory* addmm = FindRow(p, "aten::addmm", "cpu");
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->self_increase_bytes(), 4096);
  EXPECT_EQ(addmm->self_allocation_bytes(), 0);
  const v1::OperatorMemory* linear = FindRow(p, "aten::linear", "cpu");
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->self_increase_bytes(), 0);
  EXPECT_EQ(linear->increase_bytes(), 4096);
  EXPECT_EQ(FindRow(p, "aten::relu", "cpu")->self_increase_bytes(), -1024);
}

// Regression for #44: a GPU-bound run, whose device-extended step windows start
// after the host began each step (docs/semantics.md §2). Times in µs.
//   cudaLaunchKernel [50,52] before the steps (corr 1) -> k0 [105,135]
//   ProfilerStep#3 [100,200]: aten::mm [110,130] > launch [112,114] (corr 2)
//     -> k1 [140,250]; +100 B on cuda:0 at 120 (total 100)
//   ProfilerStep#4 [200,300]: aten::mm [210,230] > launch [212,214] (corr 3)
//     -> k2 [250,360]; +200 B at 220 (total 300), -100 B at 290 (total 200)
// Device windows: #3 [max(100, k0's end 135), max(200, 250)) = [135,250);
// #4 [max(250, 200), max(300, 360)) = [250,360). The window of #3 starts after
// the allocation at 120 and the one of #4 after the one at 220: by those
// windows the first is in no step and the second in #3.
constexpr char kGpuBoundTrace[] = R"({"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 50, "dur": 2, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "k0", "pid": 0, "tid": 7, "ts": 105, "dur": 30, "args": {"correlation": 1, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 110, "dur": 20, "args": {"External id": 10}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 112, "dur": 2, "args": {"External id": 10, "correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 140, "dur": 110, "args": {"correlation": 2, "device": 0, "stream": 7}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 1, "tid": 1, "ts": 200, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 210, "dur": 20, "args": {"External id": 11}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 212, "dur": 2, "args": {"External id": 11, "correlation": 3}},
  {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 250, "dur": 110, "args": {"correlation": 3, "device": 0, "stream": 7}},
  {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 120, "args": {"Device Type": 1, "Device Id": 0, "Addr": 1, "Bytes": 100, "Total Allocated": 100, "Total Reserved": 512}},
  {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 220, "args": {"Device Type": 1, "Device Id": 0, "Addr": 2, "Bytes": 200, "Total Allocated": 300, "Total Reserved": 512}},
  {"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": 290, "args": {"Device Type": 1, "Device Id": 0, "Addr": 1, "Bytes": -100, "Total Allocated": 200, "Total Reserved": 512}}]})";

TEST(MemoryStepsTest, AllocationsBelongToTheHostStepSpansNotTheDeviceWindows) {
  const v1::WorkerProfile p = Profile(kGpuBoundTrace);
  ASSERT_EQ(p.steps_size(), 2);
  EXPECT_EQ(p.steps(0).start_us(), 135);  // the device windows are unchanged
  EXPECT_EQ(p.steps(1).start_us(), 250);
  const v1::OperatorMemory* mm = FindRow(p, "aten::mm", "cuda:0");
  ASSERT_NE(mm, nullptr);
  // Both allocations count: 100 + 200 bytes, one in each step.
  EXPECT_EQ(mm->self_allocation_count(), 2);
  EXPECT_EQ(mm->self_allocation_bytes(), 300);
  ASSERT_EQ(mm->step_samples_size(), 2);
  EXPECT_EQ(mm->step_samples(0).step_index(), 0);
  EXPECT_EQ(mm->step_samples(0).allocation_bytes(), 100);
  EXPECT_EQ(mm->step_samples(1).step_index(), 1);
  EXPECT_EQ(mm->step_samples(1).allocation_bytes(), 200);
  // The free at 290 is in #4's host range, outside every operator: no row.
  // The operator rows' own samples already followed the host ranges: one
  // aten::mm call in each step, as its allocations now are.
  const v1::OperatorStats* op = fixture::FindOperator(p, "aten::mm");
  ASSERT_NE(op, nullptr);
  ASSERT_EQ(op->step_samples_size(), 2);
  EXPECT_EQ(op->step_samples(0).calls(), 1);
  EXPECT_EQ(op->step_samples(1).calls(), 1);
}

TEST(MemoryStepsTest, CurveAndPeakFollowTheHostStepSpans) {
  const v1::WorkerProfile p = Profile(kGpuBoundTrace);
  const v1::MemoryStats* cuda = FindDevice(p, "cuda:0");
  ASSERT_NE(cuda, nullptr);
  // All three events, at 120, 220 and 290, offsets from #3's host start 100.
  EXPECT_EQ(cuda->event_count(), 3);
  ASSERT_EQ(cuda->curve_size(), 3);
  EXPECT_EQ(cuda->curve(0).offset_ns(), 20000);
  EXPECT_EQ(cuda->curve(2).offset_ns(), 190000);
  // The peak: 300 at 220, in ProfilerStep#4 (kept step 1), 120 µs after 100.
  EXPECT_EQ(cuda->peak_allocated_bytes(), 300);
  EXPECT_EQ(cuda->peak_offset_ns(), 120000);
  EXPECT_EQ(cuda->peak_step_index(), 1);
  // 100 for 100 µs, then 300 for 70 µs, over [120,290].
  EXPECT_DOUBLE_EQ(cuda->average_allocated_bytes(),
                   (100.0 * 100 + 300.0 * 70) / 170);
}

// Regression for #44 (item 4): the peak's step as the trace numbers it, the
// N of ProfilerStep#N the steps view prints, next to its index.
TEST(MemoryStepsTest, PeakCarriesTheTracesStepIdNextToItsIndex) {
  const v1::WorkerProfile p = Profile(kGpuBoundTrace);
  const v1::MemoryStats* cuda = FindDevice(p, "cuda:0");
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->peak_step_index(), 1);
  ASSERT_TRUE(cuda->has_peak_step());
  EXPECT_EQ(cuda->peak_step(), 4);  // ProfilerStep#4
  EXPECT_EQ(p.steps(1).step(), 4);
  // Each step's host range, which the memory curve's axis uses.
  EXPECT_EQ(p.steps(0).host_start_us(), 100);
  EXPECT_EQ(p.steps(0).host_duration_us(), 100);
  EXPECT_EQ(p.steps(1).host_start_us(), 200);
}

TEST(MemoryViewTest, DownsamplingKeepsThePeakExactly) {
  std::vector<MemoryCurvePoint> points;
  for (int64_t k = 0; k < 100000; ++k) points.push_back({k, k % 97, 0});
  points[54321].allocated = 1 << 20;
  const std::vector<MemoryCurvePoint> out =
      DownsampleCurve(points, kMaxCurvePoints);
  EXPECT_LE(out.size(), kMaxCurvePoints);
  int64_t peak = 0;
  for (size_t k = 0; k < out.size(); ++k) {
    peak = std::max(peak, out[k].allocated);
    if (k > 0) EXPECT_LT(out[k - 1].offset_ns, out[k].offset_ns);
  }
  EXPECT_EQ(peak, 1 << 20);
  EXPECT_EQ(DownsampleCurve({{0, 1, 0}, {1, 2, 0}}, kMaxCurvePoints).size(),
            2u);
}

}  // namespace
}  // namespace profdiff::analysis
