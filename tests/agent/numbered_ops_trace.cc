#include "tests/agent/numbered_ops_trace.h"

#include <string>

#include <gtest/gtest.h>

#include "base/str_cat.h"
#include "trace/kineto_reader.h"

namespace profdiff::agent {

trace::Trace NumberedOpsTrace(int n) {
  std::string json = R"({"traceEvents": [)";
  for (int i = 0; i < n; ++i) {
    base::StrAppend(&json, i == 0 ? "" : ",",
                    R"({"ph": "X", "cat": "cpu_op", "name": "op)", i,
                    R"(", "pid": 4242, "tid": 1, "ts": )", i, R"(, "dur": 1})");
  }
  json += "]}";
  absl::StatusOr<trace::Trace> trace =
      trace::ReadKinetoTrace(json, "inline.json");
  EXPECT_TRUE(trace.ok()) << trace.status();
  return trace.ok() ? *std::move(trace) : trace::Trace{};
}

}  // namespace profdiff::agent
