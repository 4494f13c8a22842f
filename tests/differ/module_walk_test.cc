// Where in the module tree a step's change is (differ/module_walk.h): the walk
// along the child holding most of its parent's change, the spread it stops at,
// the nodes it never walks into, and the backward nodes it folds into their
// modules.
#include "differ/module_walk.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ {
namespace {

using testing::Diff;
using testing::Model;
using testing::Profile;

// A matched module node whose compare_us goes from `baseline` to
// `experimental`; `significant` sets a noise interval saying so (no interval
// when unset: the thresholds decide).
v1::ModuleDiffNode& AddNode(v1::ModuleDiffNode& parent, const std::string& name,
                            double baseline, double experimental,
                            bool significant = true) {
  v1::ModuleDiffNode& n = *parent.add_children();
  n.set_name(name);
  n.set_path(parent.path().empty() ? name : parent.path() + "/" + name);
  n.set_status(v1::DIFF_STATUS_MATCHED);
  n.set_kind(v1::MODULE_NODE_KIND_MODULE);
  n.mutable_baseline()->set_compare_us(baseline);
  n.mutable_experimental()->set_compare_us(experimental);
  n.mutable_delta()->set_compare_us(experimental - baseline);
  n.mutable_noise()->set_has_interval(true);
  n.mutable_noise()->set_significant(significant);
  return n;
}

v1::ModuleDiffNode Root(double baseline, double experimental) {
  v1::ModuleDiffNode root;
  root.set_name("(root)");
  root.set_kind(v1::MODULE_NODE_KIND_ROOT);
  root.set_status(v1::DIFF_STATUS_MATCHED);
  root.mutable_baseline()->set_compare_us(baseline);
  root.mutable_experimental()->set_compare_us(experimental);
  root.mutable_delta()->set_compare_us(experimental - baseline);
  return root;
}

std::vector<std::string> Names(const std::vector<ModuleUnit>& units) {
  std::vector<std::string> names;
  names.reserve(units.size());
  for (const ModuleUnit& u : units) names.push_back(u.node->name());
  return names;
}

TEST(ModuleWalkTest, BackwardNodesPairWithTheirModuleByPath) {
  const v1::DiffReport report =
      Diff(Profile("a", Model(100, 100)), Profile("b", Model(400, 110)));
  const BackwardIndex index(report.modules());
  const v1::ModuleDiffNode& model = report.modules().children(0);
  ASSERT_EQ(model.name(), "Model_0");
  const v1::ModuleDiffNode* backward = index.BackwardOf(model);
  ASSERT_NE(backward, nullptr);
  EXPECT_EQ(backward->name(), "Model_0.backward");
  EXPECT_TRUE(index.IsBackwardOfModule(*backward));
  EXPECT_EQ(index.BackwardOf(*backward), nullptr);
}

TEST(ModuleWalkTest, WalkFoldsEachModulesBackwardIntoIt) {
  // Linear_0 grows by 300 us forward and 600 us backward per step.
  const v1::DiffReport report =
      Diff(Profile("a", Model(100, 100)), Profile("b", Model(400, 110)));
  const ModuleWalk walk = WalkModules(report.modules(), ChangeThreshold());
  EXPECT_TRUE(walk.descended);
  ASSERT_NE(walk.where.node, nullptr);
  EXPECT_EQ(walk.where.node->name(), "Linear_0");
  ASSERT_NE(walk.where.backward, nullptr);
  EXPECT_EQ(walk.where.backward->name(), "Linear_0.backward");
  EXPECT_NEAR(walk.where.delta, 900, 1e-6);
  EXPECT_TRUE(walk.where.changed);
  EXPECT_TRUE(walk.spread.empty());  // a leaf
}

TEST(ModuleWalkTest, DescendsAlongTheChildHoldingMostOfTheChange) {
  v1::ModuleDiffNode root = Root(1000, 1100);
  v1::ModuleDiffNode& a = AddNode(root, "A", 500, 580);
  AddNode(root, "B", 300, 320);
  AddNode(a, "A1", 200, 270);
  AddNode(a, "A2", 100, 110);
  const ModuleWalk walk = WalkModules(root, ChangeThreshold());
  EXPECT_TRUE(walk.descended);
  EXPECT_EQ(walk.where.node->path(), "A/A1");
  EXPECT_EQ(walk.where.backward, nullptr);
  EXPECT_DOUBLE_EQ(walk.where.delta, 70);
  EXPECT_TRUE(walk.spread.empty());
}

TEST(ModuleWalkTest, StopsWhereTheChangeSpreadsLargestFirst) {
  v1::ModuleDiffNode root = Root(1000, 1090);
  AddNode(root, "A", 100, 120);
  AddNode(root, "B", 100, 140);
  AddNode(root, "C", 100, 130);
  const ModuleWalk walk = WalkModules(root, ChangeThreshold());
  EXPECT_FALSE(walk.descended);
  EXPECT_EQ(walk.where.node, &root);
  EXPECT_DOUBLE_EQ(walk.where.delta, 90);
  EXPECT_EQ(Names(walk.spread), (std::vector<std::string>{"B", "C", "A"}));
}

TEST(ModuleWalkTest, ChildrenAgainstTheChangeOrUnchangedAreNotWalkedInto) {
  v1::ModuleDiffNode root = Root(1000, 1100);
  AddNode(root, "Faster", 500, 300);                        // against the sign
  AddNode(root, "Noisy", 200, 500, /*significant=*/false);  // not a change
  AddNode(root, "Slower", 100, 400);
  const ModuleWalk walk = WalkModules(root, ChangeThreshold());
  EXPECT_TRUE(walk.descended);
  EXPECT_EQ(walk.where.node->name(), "Slower");
}

TEST(ModuleWalkTest, AddedSubModulesHoldingTheChangeStopTheWalkAtTheirParent) {
  v1::ModuleDiffNode root = Root(1000, 1100);
  AddNode(root, "Kept", 100, 120);
  v1::ModuleDiffNode& added = AddNode(root, "New", 0, 80);
  added.set_status(v1::DIFF_STATUS_ADDED);
  const ModuleWalk walk = WalkModules(root, ChangeThreshold());
  EXPECT_FALSE(walk.descended);
  EXPECT_EQ(walk.where.node, &root);
  EXPECT_TRUE(walk.spread.empty());
}

TEST(ModuleWalkTest, NoChangeAtTheRootStaysThere) {
  v1::ModuleDiffNode root = Root(1000, 1000);
  AddNode(root, "A", 100, 200);
  const ModuleWalk walk = WalkModules(root, ChangeThreshold());
  EXPECT_FALSE(walk.descended);
  EXPECT_EQ(walk.where.node, &root);
  EXPECT_TRUE(walk.spread.empty());
}

TEST(ModuleWalkTest, NodeChangedByItsIntervalElseByTheThresholds) {
  v1::ModuleDiffNode root = Root(0, 0);
  const ChangeThreshold t{.min_pct = 5, .min_abs = 10};
  EXPECT_TRUE(NodeChanged(AddNode(root, "sig", 100, 101), t));
  EXPECT_FALSE(NodeChanged(AddNode(root, "not", 100, 200, false), t));
  v1::ModuleDiffNode& plain = AddNode(root, "plain", 1000, 1050);
  plain.clear_noise();
  EXPECT_TRUE(NodeChanged(plain, t));
  plain.mutable_delta()->set_compare_us(49);
  EXPECT_FALSE(NodeChanged(plain, t));  // under 5%
  plain.mutable_baseline()->set_compare_us(100);
  plain.mutable_delta()->set_compare_us(9);
  EXPECT_FALSE(NodeChanged(plain, t));  // 9%, but under 10 us
  plain.mutable_delta()->set_compare_us(0);
  EXPECT_FALSE(NodeChanged(plain, ChangeThreshold{.min_pct = 0, .min_abs = 0}));
}

}  // namespace
}  // namespace profdiff::differ
