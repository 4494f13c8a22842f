// A module node's operator and kernel rows reduced when asked
// (analysis/module_node_tables.h) are the rows a digest made with node tables
// holds: over the workers of the selected ranks, in rank order, taking the
// later of two children of one name. The same on every real pair, through the
// differ: tests/differ/differ_test.cc
// (DiffRunsSaysWhatADiffOfWholeDigestsSays).
#include "analysis/module_node_tables.h"

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/run_digest.h"

namespace profdiff::analysis {
namespace {

v1::ModuleNode Module(const std::string& name,
                      const std::vector<std::string>& operators,
                      const std::vector<v1::ModuleNode>& children = {}) {
  v1::ModuleNode node;
  node.set_name(name);
  node.set_kind(v1::MODULE_NODE_KIND_MODULE);
  node.set_calls(1);
  double us = 10;
  for (const std::string& op : operators) {
    v1::OperatorStats& row = *node.add_operators();
    row.set_name(op);
    row.set_calls(2);
    row.set_host_self_us(us);
    row.set_host_total_us(us);
    v1::OperatorStepSample& step = *row.add_step_samples();
    step.set_step_index(0);
    step.set_calls(1);
    step.set_host_self_us(us / 2);
    v1::KernelStats& kernel = *node.add_kernels();
    kernel.set_name(op + "_kernel");
    kernel.set_calls(1);
    kernel.set_total_us(us / 4);
    kernel.set_min_us(us / 4);
    kernel.set_max_us(us / 4);
    us += 5;
  }
  for (const v1::ModuleNode& child : children) *node.add_children() = child;
  return node;
}

v1::WorkerProfile Worker(int rank, int steps, v1::ModuleNode net) {
  v1::WorkerProfile w;
  w.mutable_worker()->set_rank(rank);
  w.mutable_worker()->set_world_size(3);
  for (int s = 0; s < steps; ++s) w.add_steps();
  v1::ModuleNode& root = *w.mutable_modules();
  root.set_kind(v1::MODULE_NODE_KIND_ROOT);
  *root.add_children() = std::move(net);
  return w;
}

// Three ranks, added out of order; rank 1 has two children named "Linear"
// (the later counts) and one "Linear" of rank 2 has a row rank 0 lacks.
v1::RunProfile ThreeRankRun() {
  v1::RunProfile run;
  run.set_run("r");
  *run.add_workers() =
      Worker(2, 2,
             Module("Net", {"aten::add"},
                    {Module("Linear", {"aten::mm", "aten::bias"}),
                     Module("ReLU", {"aten::relu"})}));
  *run.add_workers() = Worker(
      0, 2,
      Module("Net", {"aten::add", "aten::mul"},
             {Module("Linear", {"aten::mm"}), Module("ReLU", {"aten::relu"})}));
  *run.add_workers() =
      Worker(1, 0,
             Module("Net", {"aten::mul"},
                    {Module("Linear", {"aten::ignored"}),
                     Module("Linear", {"aten::mm", "aten::addmm"})}));
  return run;
}

void ForEachNode(const v1::DigestModuleNode& node,
                 const std::function<void(const v1::DigestModuleNode&)>& f) {
  f(node);
  for (const v1::DigestModuleNode& child : node.children())
    ForEachNode(child, f);
}

TEST(ModuleNodeTablesTest, EveryNodeHasTheRowsOfADigestMadeWithThem) {
  const v1::RunProfile run = ThreeRankRun();
  for (const std::vector<int32_t>& ranks :
       {std::vector<int32_t>{}, std::vector<int32_t>{1, 2},
        std::vector<int32_t>{0}}) {
    SCOPED_TRACE(ranks.size());
    auto whole = DigestOfRun(run, ranks);
    auto without = DigestOfRun(run, ranks, {.node_tables = false});
    ASSERT_TRUE(whole.ok()) << whole.status();
    ASSERT_TRUE(without.ok()) << without.status();
    const ModuleNodeTables tables(run, *without);
    std::vector<const v1::DigestModuleNode*> eager, lazy;
    ForEachNode(whole->modules(), [&](const auto& n) { eager.push_back(&n); });
    ForEachNode(without->modules(), [&](const auto& n) { lazy.push_back(&n); });
    ASSERT_EQ(eager.size(), lazy.size());
    int rows = 0;
    for (size_t i = 0; i < eager.size(); ++i) {
      SCOPED_TRACE(eager[i]->name());
      EXPECT_EQ(lazy[i]->operators_size(), 0);
      EXPECT_EQ(lazy[i]->kernels_size(), 0);
      const v1::DigestModuleNode& reduced = tables.Of(*lazy[i]);
      EXPECT_EQ(&tables.Of(*lazy[i]), &reduced);  // reduced once
      v1::DigestModuleNode expected;
      *expected.mutable_operators() = eager[i]->operators();
      *expected.mutable_kernels() = eager[i]->kernels();
      EXPECT_EQ(reduced.SerializeAsString(), expected.SerializeAsString());
      // Without the tables, the rest of the node is the same.
      v1::DigestModuleNode rest = *eager[i];
      rest.clear_operators();
      rest.clear_kernels();
      rest.clear_children();
      v1::DigestModuleNode lazy_rest = *lazy[i];
      lazy_rest.clear_children();
      EXPECT_EQ(rest.SerializeAsString(), lazy_rest.SerializeAsString());
      rows += reduced.operators_size();
    }
    EXPECT_GT(rows, 0);
  }
}

TEST(ModuleNodeTablesTest, TheLaterOfTwoChildrenOfOneNameCounts) {
  const v1::RunProfile run = ThreeRankRun();
  auto without = DigestOfRun(run, {1}, {.node_tables = false});
  ASSERT_TRUE(without.ok()) << without.status();
  const ModuleNodeTables tables(run, *without);
  const v1::DigestModuleNode& linear =
      without->modules().children(0).children(0);
  ASSERT_EQ(linear.name(), "Linear");
  const v1::DigestModuleNode& reduced = tables.Of(linear);
  ASSERT_EQ(reduced.operators_size(), 2);
  EXPECT_EQ(reduced.operators(0).name(), "aten::mm");
  EXPECT_EQ(reduced.operators(1).name(), "aten::addmm");
}

TEST(ModuleNodeTablesTest, ANodeOfAnotherTreeIsItself) {
  const v1::RunProfile run = ThreeRankRun();
  auto without = DigestOfRun(run, {}, {.node_tables = false});
  ASSERT_TRUE(without.ok()) << without.status();
  const ModuleNodeTables tables(run, *without);
  v1::DigestModuleNode other;
  other.add_operators()->set_name("x");
  EXPECT_EQ(&tables.Of(other), &other);
}

}  // namespace
}  // namespace profdiff::analysis
