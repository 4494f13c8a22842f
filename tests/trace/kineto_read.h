// What the tests of the Kineto reader's parts (kineto_parser.cc,
// kineto_top_level.cc, kineto_events.cc) and of the reader itself share: a
// modern trace with one event of each kind, reads that expect success or
// failure, and gzip as trace files hold it (trace_file_test.cc too).
#ifndef PROFDIFF_TESTS_TRACE_KINETO_READ_H_
#define PROFDIFF_TESTS_TRACE_KINETO_READ_H_

#include <string>
#include <string_view>

#include <absl/status/status.h>

#include "tests/support/gzip_text.h"
#include "trace/trace.h"

namespace profdiff::trace {

// A Kineto trace of 10 events: an op, its launch and kernel, their flow, a
// memory instant, a step, a module, an unknown category and thread metadata;
// with deviceProperties, distributedInfo and baseTimeNanoseconds.
inline constexpr std::string_view kModernTrace = R"({
  "schemaVersion": 1, "baseTimeNanoseconds": 1700000000000000000,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "totalGlobalMem": 85000000000, "numSms": 132,
                        "computeMajor": 9, "computeMinor": 0}],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
  "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 11, "ts": 100.125, "dur": 20.5,
     "args": {"External id": 7, "Input Dims": [[2, 3], [3, 4]], "Sequence number": 5, "Fwd thread id": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 105, "dur": 3,
     "args": {"External id": 7, "correlation": 99}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 110, "dur": 9.001,
     "args": {"correlation": 99, "device": 0, "stream": 7, "grid": [1, 2, 1], "block": [128, 1, 1],
              "blocks per SM": 0.25, "est. achieved occupancy %": 12, "registers per thread": 32}},
    {"ph": "s", "id": 99, "pid": 10, "tid": 11, "ts": 105, "cat": "ac2g", "name": "ac2g"},
    {"ph": "f", "id": 99, "pid": 0, "tid": 7, "ts": 110, "cat": "ac2g", "name": "ac2g", "bp": "e"},
    {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "pid": 10, "tid": 11, "ts": 101, "s": "t",
     "args": {"Total Reserved": 2097152, "Total Allocated": 512, "Bytes": 512, "Device Type": 1, "Device Id": 0}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 10, "tid": 11, "ts": 99, "dur": 40},
    {"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 10, "tid": 11, "ts": 99.5, "dur": 30,
     "args": {"Python id": 12, "Python parent id": 3}},
    {"ph": "X", "cat": "mystery_category", "name": "something", "pid": 10, "tid": 11, "ts": 1, "dur": 1},
    {"name": "thread_name", "ph": "M", "pid": 10, "tid": 11, "args": {"name": "python"}}
  ]})";

// Reads `json` as "test.json", failing the test (and giving an empty Trace)
// when it does not read.
Trace MustRead(std::string_view json);

// The status of reading `json` as "bad.json".
absl::Status ReadError(std::string_view json);

// `text` gzipped (one member, level 6), as a .json.gz trace holds it.
using test_support::Gzip;

}  // namespace profdiff::trace

#endif  // PROFDIFF_TESTS_TRACE_KINETO_READ_H_
