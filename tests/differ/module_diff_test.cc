// The module tree diff (differ/module_diff.h) through DiffRuns on hand-built
// trees: instance suffixes, optimal alignment of children, `(unknown)` blocks,
// --path by index or name, backward and optimizer nodes.
#include "differ/module_diff.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "differ/differ.h"
#include "tests/differ/hand_built_run.h"

namespace profdiff::differ {
namespace {

using testing::Child;
using testing::MakeRun;
using testing::NodeSpec;

TEST(DiffModulesTest, InstanceSuffixesThatDifferStillMatch) {
  const auto a = MakeRun("a", {{"Linear_3", 100}, {"ReLU_4", 10}});
  const auto b = MakeRun("b", {{"Linear_7", 120}, {"ReLU_8", 10}});
  auto report = DiffRuns(a, b, {});
  ASSERT_TRUE(report.ok()) << report.status();
  const v1::ModuleDiffNode& root = report->modules();
  ASSERT_GE(root.children_size(), 2);
  EXPECT_EQ(root.children(0).status(), v1::DIFF_STATUS_MATCHED);
  EXPECT_EQ(root.children(0).baseline_name(), "Linear_3");
  EXPECT_EQ(root.children(0).experimental_name(), "Linear_7");
  EXPECT_DOUBLE_EQ(root.children(0).delta().compare_us(), 20);
  EXPECT_EQ(root.children(1).status(), v1::DIFF_STATUS_MATCHED);
}

TEST(DiffModulesTest, ResNet50AgainstResNet152Layer3MatchesSixAndAddsThirty) {
  auto stage = [](int blocks) {
    NodeSpec layer3("layer3");
    for (int i = 0; i < blocks; ++i)
      layer3.children.push_back({"Bottleneck_" + std::to_string(i), 10});
    layer3.host_per_step = 10.0 * blocks;
    return NodeSpec{"ResNet_0", layer3.host_per_step, 0, {layer3}};
  };
  auto report =
      DiffRuns(MakeRun("r50", {stage(6)}), MakeRun("r152", {stage(36)}), {});
  ASSERT_TRUE(report.ok()) << report.status();
  const v1::ModuleDiffNode& layer3 =
      Child(Child(report->modules(), "ResNet_0"), "layer3");
  int matched = 0, added = 0, removed = 0;
  for (const v1::ModuleDiffNode& c : layer3.children()) {
    matched += c.status() == v1::DIFF_STATUS_MATCHED;
    added += c.status() == v1::DIFF_STATUS_ADDED;
    removed += c.status() == v1::DIFF_STATUS_REMOVED;
  }
  EXPECT_EQ(matched, 6);
  EXPECT_EQ(added, 30);
  EXPECT_EQ(removed, 0);
}

TEST(DiffModulesTest, UnknownBlockHoldsTimeOutsideEveryChild) {
  // Steps of 1000 us; the model covers 700 of them, so 300 belong to no module.
  auto report = DiffRuns(MakeRun("a", {{"Model_0", 700}}),
                         MakeRun("b", {{"Model_0", 700}}), {});
  ASSERT_TRUE(report.ok());
  const v1::ModuleDiffNode& unknown = Child(report->modules(), "(unknown)");
  EXPECT_EQ(unknown.status(), v1::DIFF_STATUS_UNKNOWN);
  EXPECT_DOUBLE_EQ(unknown.baseline().host_us(), 300);
  EXPECT_DOUBLE_EQ(unknown.delta().host_us(), 0);
}

TEST(DiffModulesTest, PathByIndexOrNameScopesTheTree) {
  auto a = MakeRun("a", {{"Enc_0", 500, 0, {{"Attn_1", 300}, {"MLP_2", 100}}}});
  auto b = MakeRun("b", {{"Enc_0", 600, 0, {{"Attn_1", 400}, {"MLP_2", 100}}}});
  v1::DiffOptions options;
  options.set_path("0/0");
  auto by_index = DiffRuns(a, b, options);
  ASSERT_TRUE(by_index.ok()) << by_index.status();
  EXPECT_EQ(by_index->modules().name(), "Attn_1");
  EXPECT_DOUBLE_EQ(by_index->modules().delta().compare_us(), 100);
  options.set_path("Enc_0/Attn_1");
  auto by_name = DiffRuns(a, b, options);
  ASSERT_TRUE(by_name.ok());
  EXPECT_EQ(by_name->modules().index_path(), "0/0");
  options.set_path("Enc/Attn");  // class names work too
  ASSERT_TRUE(DiffRuns(a, b, options).ok());
  options.set_path("Enc_0/Conv_9");
  auto missing = DiffRuns(a, b, options);
  ASSERT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("Attn_1"), std::string::npos)
      << missing.status();
}

TEST(DiffModulesTest, BackwardAndOptimizerNodesAlignLikeModules) {
  auto tree = [](const std::string& linear, const std::string& optimizer,
                 double backward) {
    NodeSpec forward{"Net_0", 300, 0, {{linear, 200}}};
    forward.backward_host_per_step = backward;
    forward.children[0].backward_host_per_step = backward;
    NodeSpec net_backward{
        "Net_0.backward", backward, 0, {{linear + ".backward", backward}}};
    net_backward.kind = net_backward.children[0].kind =
        v1::MODULE_NODE_KIND_BACKWARD;
    NodeSpec step{optimizer, 50};
    step.kind = v1::MODULE_NODE_KIND_OPTIMIZER;
    return std::vector<NodeSpec>{forward, net_backward, step};
  };
  const auto a = MakeRun("a", tree("Linear_3", "Optimizer.step#SGD.step", 400));
  const auto b =
      MakeRun("b", tree("Linear_7", "Optimizer.step#Adam.step", 500));
  auto report = DiffRuns(a, b, {});
  ASSERT_TRUE(report.ok()) << report.status();
  const v1::ModuleDiffNode& root = report->modules();
  ASSERT_EQ(root.children_size(),
            4);  // forward, backward, optimizer, (unknown)
  const v1::ModuleDiffNode& net_backward = root.children(1);
  EXPECT_EQ(net_backward.status(), v1::DIFF_STATUS_MATCHED);
  EXPECT_EQ(net_backward.kind(), v1::MODULE_NODE_KIND_BACKWARD);
  const v1::ModuleDiffNode& linear_backward =
      Child(net_backward, "Linear_7.backward");
  EXPECT_EQ(linear_backward.status(), v1::DIFF_STATUS_MATCHED);
  EXPECT_EQ(linear_backward.baseline_name(), "Linear_3.backward");
  EXPECT_DOUBLE_EQ(linear_backward.delta().compare_us(), 100);
  EXPECT_EQ(net_backward.children_size(),
            1);  // no (unknown): its children hold all its time
  const v1::ModuleDiffNode& step = root.children(2);
  EXPECT_EQ(
      step.status(),
      v1::DIFF_STATUS_MATCHED);  // SGD against Adam: one changed optimizer node
  EXPECT_EQ(step.baseline_name(), "Optimizer.step#SGD.step");
  EXPECT_EQ(step.experimental_name(), "Optimizer.step#Adam.step");
  // The step holds forward 300 + backward 400 + optimizer 50; 250 belong to
  // none of them.
  EXPECT_DOUBLE_EQ(Child(root, "(unknown)").baseline().host_us(), 250);
  // Each forward module reports its backward beside its own time.
  const v1::ModuleDiffNode& linear = Child(root.children(0), "Linear_7");
  EXPECT_DOUBLE_EQ(linear.baseline().backward_us(), 400);
  EXPECT_DOUBLE_EQ(linear.delta().backward_us(), 100);

  v1::DiffOptions options;
  for (const std::string path : {"Net_0.backward/Linear_3.backward",
                                 "Net.backward/Linear.backward", "1/0"}) {
    options.set_path(path);
    auto scoped = DiffRuns(a, b, options);
    ASSERT_TRUE(scoped.ok()) << path << ": " << scoped.status();
    EXPECT_EQ(scoped->modules().name(), "Linear_7.backward") << path;
  }
}

}  // namespace
}  // namespace profdiff::differ
