// The module tree, through the profile of a small hand-written trace: every
// expected number is worked out in the comments from the event times (µs).
#include "analysis/module_tree.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "tests/analysis/fixture_trace.h"

namespace profdiff::analysis {
namespace {

using fixture::Fixture;
using fixture::Profile;

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

}  // namespace
}  // namespace profdiff::analysis
