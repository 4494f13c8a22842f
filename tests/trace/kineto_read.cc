#include "tests/trace/kineto_read.h"

#include <utility>

#include <absl/status/statusor.h>
#include <gtest/gtest.h>

#include "trace/kineto_reader.h"

namespace profdiff::trace {

Trace MustRead(std::string_view json) {
  absl::StatusOr<Trace> trace = ReadKinetoTrace(json, "test.json");
  EXPECT_TRUE(trace.ok()) << trace.status();
  return trace.ok() ? std::move(*trace) : Trace{};
}

absl::Status ReadError(std::string_view json) {
  return ReadKinetoTrace(json, "bad.json").status();
}

}  // namespace profdiff::trace
