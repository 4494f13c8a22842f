// The overview diff and the per-rank step view (differ/overview_diff.h) on
// digests of hand-built runs: per-step means, missing device values, the
// slowest compute and what the report says about a side.
#include "differ/overview_diff.h"

#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "differ/finding_evidence.h"
#include "tests/differ/findings/finding_fixture.h"
#include "tests/differ/hand_built_run.h"

namespace profdiff::differ {
namespace {

using testing::DigestOf;
using testing::Model;
using testing::Profile;
using testing::Rank;

// Ranks of `step_us` each with `communication_us` of it in collectives.
v1::RunDigest Ranks(const std::vector<std::pair<double, double>>& steps) {
  std::vector<Rank> ranks;
  for (const auto& [step_us, communication_us] : steps) {
    Rank& r = ranks.emplace_back();
    r.step_us = step_us;
    r.communication_us = communication_us;
  }
  return DigestOf(Profile("ranks", ranks));
}

TEST(OverviewDiffTest, StepTimeRowIsThePerStepMeanWithItsNoise) {
  const v1::RunDigest a = DigestOf(Profile("a", Model(100, 100)));
  const v1::RunDigest b = DigestOf(Profile("b", Model(400, 110)));
  const Side sa(a, v1::NORMALIZATION_TOTAL, "baseline");  // not for overview
  const Side sb(b, v1::NORMALIZATION_TOTAL, "experimental");
  EXPECT_NEAR(MeanStepTime(sa), 700, 1e-9);
  const v1::Overview overview = DiffOverview(sa, sb, ChangeThreshold());
  const v1::OverviewRow* step = RowOf(&overview, v1::OVERVIEW_METRIC_STEP_TIME);
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->unit(), v1::VALUE_UNIT_US);
  EXPECT_NEAR(step->baseline(), 700, 1e-9);
  EXPECT_NEAR(step->experimental(), 1630, 1e-9);
  EXPECT_NEAR(step->delta(), 930, 1e-9);
  EXPECT_NEAR(step->delta_pct(), 930.0 / 7, 1e-9);
  EXPECT_TRUE(step->noise().has_interval());
  EXPECT_TRUE(step->noise().significant());
  const v1::OverviewRow* ranks = RowOf(&overview, v1::OVERVIEW_METRIC_RANKS);
  ASSERT_NE(ranks, nullptr);
  EXPECT_DOUBLE_EQ(ranks->baseline(), 1);
  const v1::OverviewRow* steps = RowOf(&overview, v1::OVERVIEW_METRIC_STEPS);
  ASSERT_NE(steps, nullptr);
  EXPECT_DOUBLE_EQ(steps->experimental(), testing::kSteps);
}

TEST(OverviewDiffTest, DeviceValuesOfACpuRunAreMissingNotZero) {
  Rank gpu = Model(100, 100);
  gpu.gpu_utilization = 0.5;
  gpu.kernel_us = 300;
  const v1::RunDigest a = DigestOf(Profile("cpu", Model(100, 100)));
  const v1::RunDigest b = DigestOf(Profile("gpu", gpu));
  const Side sa(a, v1::NORMALIZATION_PER_STEP, "baseline");
  const Side sb(b, v1::NORMALIZATION_PER_STEP, "experimental");
  const v1::Overview overview = DiffOverview(sa, sb, ChangeThreshold());
  for (const v1::OverviewMetric metric :
       {v1::OVERVIEW_METRIC_GPU_UTILIZATION, v1::OVERVIEW_METRIC_KERNEL}) {
    SCOPED_TRACE(v1::OverviewMetric_Name(metric));
    const v1::OverviewRow* row = RowOf(&overview, metric);
    ASSERT_NE(row, nullptr);
    EXPECT_TRUE(row->baseline_missing());
    EXPECT_FALSE(row->experimental_missing());
    EXPECT_DOUBLE_EQ(row->delta(), 0);
    EXPECT_FALSE(row->has_noise());
  }
  EXPECT_DOUBLE_EQ(
      RowOf(&overview, v1::OVERVIEW_METRIC_GPU_UTILIZATION)->experimental(),
      0.5);
  // Host time is never missing.
  EXPECT_FALSE(
      RowOf(&overview, v1::OVERVIEW_METRIC_CPU_EXEC)->baseline_missing());
}

TEST(OverviewDiffTest, SlowestComputeIsMarkedPerSideOverTheMedian) {
  // Compute 900, 600, 600 and 600, 620: rank 0 of the baseline is 50% over
  // the others; 620 is under 5% over 600.
  const v1::RunDigest a = Ranks({{1000, 100}, {1000, 400}, {1000, 400}});
  const v1::RunDigest b = Ranks({{1000, 400}, {1000, 380}});
  const Side sa(a, v1::NORMALIZATION_PER_STEP, "baseline");
  const Side sb(b, v1::NORMALIZATION_PER_STEP, "experimental");
  const std::vector<v1::RankSteps> ranks = RankStepsOf(sa, sb);
  ASSERT_EQ(ranks.size(), 5u);
  EXPECT_EQ(ranks[0].side(), v1::RUN_SIDE_BASELINE);
  EXPECT_EQ(ranks[0].rank(), 0);
  EXPECT_DOUBLE_EQ(ranks[0].compute_us(), 900);
  EXPECT_TRUE(ranks[0].slowest_compute());
  EXPECT_FALSE(ranks[1].slowest_compute());
  EXPECT_EQ(ranks[3].side(), v1::RUN_SIDE_EXPERIMENTAL);
  EXPECT_EQ(ranks[4].rank(), 1);
  EXPECT_DOUBLE_EQ(ranks[4].compute_us(), 620);
  EXPECT_FALSE(ranks[3].slowest_compute());
  EXPECT_FALSE(ranks[4].slowest_compute());
  EXPECT_EQ(ranks[0].steps(), testing::kSteps);
  EXPECT_EQ(ranks[0].worker_name(), "worker0");
}

TEST(OverviewDiffTest, ASingleRankIsNeverTheSlowestCompute) {
  const v1::RunDigest a = Ranks({{1000, 0}});
  const Side sa(a, v1::NORMALIZATION_PER_STEP, "baseline");
  const std::vector<v1::RankSteps> ranks = RankStepsOf(sa, sa);
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_FALSE(ranks[0].slowest_compute());
  EXPECT_FALSE(ranks[1].slowest_compute());
}

TEST(OverviewDiffTest, SummaryNamesTheRunItsRanksAndSteps) {
  const v1::RunDigest a = Ranks({{1000, 0}, {1000, 0}});
  const v1::RunSummary summary =
      SummarizeSide(Side(a, v1::NORMALIZATION_PER_STEP, "baseline"));
  EXPECT_EQ(summary.run(), "ranks");
  ASSERT_EQ(summary.ranks_size(), 2);
  EXPECT_EQ(summary.ranks(1), 1);
  EXPECT_DOUBLE_EQ(summary.steps_per_rank(), testing::kSteps);
  EXPECT_EQ(summary.module_source(), v1::MODULE_TREE_SOURCE_ANNOTATIONS);
}

}  // namespace
}  // namespace profdiff::differ
