#include "tests/analysis/fixture_trace.h"

#include <gtest/gtest.h>

#include "trace/kineto_reader.h"

namespace profdiff::analysis::fixture {

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

v1::WorkerProfile Profile(const std::string& json, ProfileOptions options) {
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

}  // namespace profdiff::analysis::fixture
