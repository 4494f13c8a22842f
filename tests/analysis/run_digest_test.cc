// A run reduced over its workers (analysis/run_digest.h): moments that merge
// exactly, per-step means and totals summed over the workers that have a row,
// samples per slot (a step a row did not run in is 0), the module tree's
// (unknown) time worked out per worker, notes said once with their ranks, and
// the rules on rank order and selection. Expected numbers are worked out in the
// comments.
#include "analysis/run_digest.h"

#include <cmath>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/digest_module_tree.h"
#include "analysis/digest_tables.h"
#include "analysis/moments.h"

namespace profdiff::analysis {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(MomentsTest, MergingGroupsGivesTheMomentsOfAllTheSamples) {
  // 1, 2, 3, 4, 10: mean 4, squared deviations 9+4+1+0+36 = 50.
  v1::Moments all, left, right;
  for (double x : {1.0, 2.0, 3.0, 4.0, 10.0}) AddSample(x, all);
  for (double x : {1.0, 2.0}) AddSample(x, left);
  for (double x : {3.0, 4.0, 10.0}) AddSample(x, right);
  MergeMoments(right, left);
  for (const v1::Moments* m : {&all, &left}) {
    EXPECT_EQ(m->count(), 5);
    EXPECT_DOUBLE_EQ(m->mean(), 4);
    EXPECT_NEAR(m->m2(), 50, 1e-12);
    EXPECT_NEAR(SampleVariance(*m), 12.5, 1e-12);  // 50 / 4
  }
  // Three zeros more: 8 samples, sum 20, mean 2.5; m2 = (1.5² + .5² + .5² +
  // 1.5² + 7.5²) + 3 * 2.5² = 61.25 + 18.75 = 80.
  AddZeros(3, all);
  EXPECT_EQ(all.count(), 8);
  EXPECT_DOUBLE_EQ(all.mean(), 2.5);
  EXPECT_NEAR(all.m2(), 80, 1e-12);
  v1::Moments one;
  AddSample(7, one);
  EXPECT_EQ(SampleVariance(one), 0);
}

v1::OperatorStats Operator(const std::string& name, int calls, double host_us,
                           const std::vector<std::pair<int, double>>& steps) {
  v1::OperatorStats row;
  row.set_name(name);
  row.set_calls(calls);
  row.set_host_self_us(host_us);
  row.set_host_total_us(host_us);
  for (const auto& [index, us] : steps) {
    v1::OperatorStepSample& s = *row.add_step_samples();
    s.set_step_index(index);
    s.set_calls(1);
    s.set_host_self_us(us);
    s.set_host_total_us(us);
  }
  return row;
}

v1::WorkerProfile Worker(int32_t rank, int kept_steps, double step_us) {
  v1::WorkerProfile w;
  w.mutable_worker()->set_rank(rank);
  w.mutable_worker()->set_worker_name("w" + std::to_string(rank));
  for (int s = 0; s < kept_steps; ++s) {
    v1::StepStats& step = *w.add_steps();
    step.set_step(s);
    step.set_duration_us(step_us + s);
  }
  w.mutable_average_step()->set_duration_us(step_us + (kept_steps - 1) / 2.0);
  w.mutable_modules()->set_kind(v1::MODULE_NODE_KIND_ROOT);
  return w;
}

// Rank 0 kept 3 steps and ran aten::mm 20 + 0 + 10 µs (none in step 1); rank
// 1 kept 2 and ran it 5 + 7; aten::add only on rank 1, in its step 0.
v1::RunProfile TwoRanks() {
  v1::RunProfile run;
  run.set_run("r");
  v1::WorkerProfile w1 = Worker(1, 2, 100);
  *w1.add_operators() = Operator("aten::mm", 2, 12, {{0, 5}, {1, 7}});
  *w1.add_operators() = Operator("aten::add", 1, 3, {{0, 3}});
  v1::WorkerProfile w0 = Worker(0, 3, 200);
  *w0.add_operators() = Operator("aten::mm", 2, 30, {{0, 20}, {2, 10}});
  // Given out of rank order: DigestOfRun takes them by rank.
  *run.add_workers() = std::move(w1);
  *run.add_workers() = std::move(w0);
  return run;
}

TEST(RunDigestTest, RowsSumEachWorkersMeanAndTotalAndPoolTheirSlots) {
  absl::StatusOr<v1::RunDigest> digest = DigestOfRun(TwoRanks(), {});
  ASSERT_TRUE(digest.ok()) << digest.status();
  EXPECT_THAT(digest->ranks(), ElementsAre(0, 1));
  EXPECT_EQ(digest->slots(), 5);  // 3 + 2
  // First seen on rank 0 (rank order), then rank 1's new row.
  ASSERT_EQ(digest->operators_size(), 2);
  const v1::DigestOperatorRow& mm = digest->operators(0);
  EXPECT_EQ(mm.name(), "aten::mm");
  const v1::ReducedMetric& host = mm.metrics(kOperatorHostTotal);
  // Per-step means: rank 0 30 / 3 = 10, rank 1 12 / 2 = 6: 16. Totals 42.
  EXPECT_DOUBLE_EQ(host.per_step(), 16);
  EXPECT_DOUBLE_EQ(host.total(), 42);
  // Slots 20, 0, 10, 5, 7: mean 8.4, m2 = 134.56 + 70.56 + 2.56 + 11.56 +
  // 1.96 = 221.2.
  EXPECT_EQ(host.samples().count(), 5);
  EXPECT_DOUBLE_EQ(host.samples().mean(), 8.4);
  EXPECT_NEAR(host.samples().m2(), 221.2, 1e-9);
  const v1::DigestOperatorRow& add = digest->operators(1);
  EXPECT_EQ(add.name(), "aten::add");
  // Only rank 1's two slots (3, 0); the diff pads rank 0's three.
  EXPECT_DOUBLE_EQ(add.metrics(kOperatorHostTotal).per_step(), 1.5);
  EXPECT_EQ(add.metrics(kOperatorHostTotal).samples().count(), 2);
  // The overview: average steps summed, every kept step a sample.
  const v1::ReducedMetric& step = digest->overview().step_metrics(kStepTime);
  EXPECT_DOUBLE_EQ(step.per_step(), 201 + 100.5);
  EXPECT_EQ(step.samples().count(), 5);
  EXPECT_DOUBLE_EQ(digest->overview().steps_sum(), 5);
  ASSERT_EQ(digest->rank_rows_size(), 2);
  EXPECT_EQ(digest->rank_rows(1).worker_name(), "w1");
}

TEST(RunDigestTest, AWorkerWithoutKeptStepsIsOneSlotHoldingItsTotals) {
  v1::RunProfile run;
  run.set_run("r");
  v1::WorkerProfile w = Worker(0, 0, 0);
  *w.add_operators() = Operator("aten::mm", 4, 40, {});
  *run.add_workers() = std::move(w);
  absl::StatusOr<v1::RunDigest> digest = DigestOfRun(run, {});
  ASSERT_TRUE(digest.ok()) << digest.status();
  EXPECT_EQ(digest->slots(), 1);
  const v1::ReducedMetric& host =
      digest->operators(0).metrics(kOperatorHostTotal);
  EXPECT_DOUBLE_EQ(host.per_step(), 40);
  EXPECT_EQ(host.samples().count(), 1);
  EXPECT_DOUBLE_EQ(host.samples().mean(), 40);
  EXPECT_THAT(digest->worker_notes(),
              ElementsAre(HasSubstr("rank 0 has 0 kept steps: no per-step")));
}

TEST(RunDigestTest, NotesAreSaidOnceWithTheirRanks) {
  v1::RunProfile run;
  run.set_run("r");
  for (int r = 0; r < 5; ++r) {
    v1::WorkerProfile w = Worker(r, 1, 10);
    if (r != 3) w.add_warnings("module tree folded below depth 64");
    *run.add_workers() = std::move(w);
  }
  absl::StatusOr<v1::RunDigest> digest = DigestOfRun(run, {});
  ASSERT_TRUE(digest.ok()) << digest.status();
  EXPECT_THAT(
      digest->worker_notes(),
      ElementsAre("ranks 0-4 have 1 kept step: no per-step noise estimate, "
                  "changes are judged by the --min-change threshold alone",
                  "ranks 0-2,4: module tree folded below depth 64"));
}

TEST(RunDigestTest, SelectedRanksAreReducedAndAnEmptySelectionNamesTheRanks) {
  absl::StatusOr<v1::RunDigest> one = DigestOfRun(TwoRanks(), {1});
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_THAT(one->ranks(), ElementsAre(1));
  EXPECT_DOUBLE_EQ(one->operators(0).metrics(kOperatorHostTotal).per_step(), 6);
  absl::StatusOr<v1::RunDigest> none = DigestOfRun(TwoRanks(), {7});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(none.status().message(),
              HasSubstr("run \"r\" has no worker with the requested ranks (it "
                        "has ranks 0,1)"));
}

TEST(RunDigestTest, WorkersMustComeInRankOrder) {
  RunDigestBuilder builder("r", {});
  ASSERT_TRUE(builder.Add(Worker(2, 1, 1)).ok());
  const absl::Status late = builder.Add(Worker(1, 1, 1));
  EXPECT_EQ(late.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(late.message(), HasSubstr("rank 1 added after rank 2"));
}

// Regression for #42: the Differ service diffed a stored run whose rank 0 two
// workers held, while `profdiff diff` refused the same folder. The digest
// refuses it, in the offline loader's words, whichever ranks are asked for.
TEST(RunDigestTest, RankGivenTwiceIsNotOneRun) {
  RunDigestBuilder builder("dup", {1});
  v1::WorkerProfile copy = Worker(0, 1, 1);
  copy.mutable_worker()->set_worker_name("copy_of_w0");
  copy.mutable_worker()->set_world_size(2);
  v1::WorkerProfile w0 = Worker(0, 1, 1);
  w0.mutable_worker()->set_world_size(2);
  v1::WorkerProfile w1 = Worker(1, 1, 1);
  w1.mutable_worker()->set_world_size(2);
  ASSERT_TRUE(builder.Add(w0).ok());
  ASSERT_TRUE(builder.Add(copy).ok());
  ASSERT_TRUE(builder.Add(w1).ok());
  const absl::StatusOr<v1::RunDigest> digest = builder.Finish();
  ASSERT_FALSE(digest.ok());
  EXPECT_EQ(digest.status().code(), absl::StatusCode::kFailedPrecondition);
  // The rank's workers by name.
  EXPECT_EQ(digest.status().message(),
            "run dup: these traces are not one run (rank 0 2 times: "
            "copy_of_w0 (rank 0 of 2), w0 (rank 0 of 2)); upload each run "
            "under a run id of its own");
}

v1::ModuleNode Module(const std::string& name,
                      const std::vector<std::pair<int, double>>& host_steps) {
  v1::ModuleNode n;
  n.set_name(name);
  n.set_kind(v1::MODULE_NODE_KIND_MODULE);
  n.set_calls(1);
  for (const auto& [index, us] : host_steps) {
    v1::ModuleStepSample& s = *n.add_step_samples();
    s.set_step_index(index);
    s.set_calls(1);
    s.set_host_us(us);
    n.set_host_us(n.host_us() + us);
  }
  return n;
}

TEST(ModuleTreeReducerTest, UnknownTimeIsWorkedOutPerWorkerAndStep) {
  // Worker 0 (2 steps): Net 100, 80 with Linear 60, 90 (more than its parent
  // in step 1: that slot's unknown is 0, not -10). Worker 1 (2 steps): Net
  // 50, 50 without children: all its time is unknown.
  ModuleTreeReducer tree;
  v1::ModuleNode root0;
  root0.set_kind(v1::MODULE_NODE_KIND_ROOT);
  v1::ModuleNode net0 = Module("Net_0", {{0, 100}, {1, 80}});
  *net0.add_children() = Module("Linear_0", {{0, 60}, {1, 90}});
  *root0.add_children() = net0;
  v1::ModuleNode root1;
  root1.set_kind(v1::MODULE_NODE_KIND_ROOT);
  *root1.add_children() = Module("Net_0", {{0, 50}, {1, 50}});
  tree.Add(root0, 2);
  tree.Add(root1, 2);
  const v1::DigestModuleNode root = tree.Finish();
  ASSERT_EQ(root.children_size(), 1);
  const v1::DigestModuleNode& net = root.children(0);
  ASSERT_EQ(net.children_size(), 1);
  // Unknown slots: worker 0: 40, 0; worker 1: 50, 50. Per-step means 20 + 50.
  const v1::ReducedMetric& unknown = net.unknown(kModuleHost);
  EXPECT_DOUBLE_EQ(unknown.per_step(), 70);
  EXPECT_EQ(unknown.samples().count(), 4);
  EXPECT_DOUBLE_EQ(unknown.samples().mean(), 35);  // 140 / 4
  // Totals: worker 0 180 - 150 = 30 (the total is clamped as a whole), 100.
  EXPECT_DOUBLE_EQ(unknown.total(), 130);
  EXPECT_DOUBLE_EQ(net.unknown(kModuleCalls).per_step(), 0);
  // A node without children keeps no unknown: all of it is outside them.
  EXPECT_EQ(net.children(0).unknown_size(), 0);
}

}  // namespace
}  // namespace profdiff::analysis
