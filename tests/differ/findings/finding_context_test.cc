// What every finding rule reads (differ/findings/finding_context.h): the step
// time's row and whether it changed, rows both sides have, device runs, and the
// share and "against the step" clauses findings add.
#include "differ/findings/finding_context.h"

#include <gtest/gtest.h>

namespace profdiff::differ {
namespace {

v1::OverviewRow& AddRow(v1::Overview& overview, v1::OverviewMetric metric,
                        double baseline, double experimental) {
  v1::OverviewRow& row = *overview.add_rows();
  row.set_metric(metric);
  row.set_baseline(baseline);
  row.set_experimental(experimental);
  row.set_delta(experimental - baseline);
  return row;
}

// A step that grew from 1000 to 1200 us, significantly.
v1::Overview GrownStep() {
  v1::Overview overview;
  v1::OverviewRow& step =
      AddRow(overview, v1::OVERVIEW_METRIC_STEP_TIME, 1000, 1200);
  step.mutable_noise()->set_has_interval(true);
  step.mutable_noise()->set_significant(true);
  return overview;
}

TEST(FindingContextTest, ReadsTheStepRowAndItsChange) {
  const v1::Overview overview = GrownStep();
  FindingInputs in;
  in.overview = &overview;
  const FindingContext context(in);
  ASSERT_NE(context.step(), nullptr);
  EXPECT_EQ(context.step(), &overview.rows(0));
  EXPECT_DOUBLE_EQ(context.step_delta(), 200);
  EXPECT_TRUE(context.step_changed());
  EXPECT_EQ(context.per_step(), " per step");
  EXPECT_FALSE(context.on_device());
  EXPECT_EQ(&context.in(), &in);
}

TEST(FindingContextTest, NoOverviewMeansNoStepAndNoChange) {
  FindingInputs in;
  in.per_step = false;
  const FindingContext context(in);
  EXPECT_EQ(context.step(), nullptr);
  EXPECT_DOUBLE_EQ(context.step_delta(), 0);
  EXPECT_FALSE(context.step_changed());
  EXPECT_EQ(context.per_step(), "");
  EXPECT_EQ(context.ShareClause(100), "");
}

TEST(FindingContextTest, RowsASideLacksAreNotRows) {
  v1::Overview overview = GrownStep();
  AddRow(overview, v1::OVERVIEW_METRIC_GPU_UTILIZATION, 0, 0.5)
      .set_baseline_missing(true);
  AddRow(overview, v1::OVERVIEW_METRIC_KERNEL, 300, 400);
  FindingInputs in;
  in.overview = &overview;
  const FindingContext context(in);
  EXPECT_EQ(context.Row(v1::OVERVIEW_METRIC_GPU_UTILIZATION), nullptr);
  EXPECT_FALSE(context.on_device());  // one side ran no device work
  EXPECT_EQ(context.Row(v1::OVERVIEW_METRIC_KERNEL), &overview.rows(2));
  EXPECT_EQ(context.Row(v1::OVERVIEW_METRIC_MEMCPY), nullptr);
  overview.mutable_rows(1)->set_baseline_missing(false);
  EXPECT_TRUE(FindingContext(in).on_device());
}

TEST(FindingContextTest, AStepUnderTheThresholdsHasNoShares) {
  v1::Overview overview;
  AddRow(overview, v1::OVERVIEW_METRIC_STEP_TIME, 1000, 1010);  // 1%
  FindingInputs in;
  in.overview = &overview;
  const FindingContext context(in);
  EXPECT_FALSE(context.step_changed());
  EXPECT_EQ(context.ShareClause(10), "");
  EXPECT_EQ(context.AgainstTheStep(-50), "");
  // Make still says the share of a step that moved at all.
  EXPECT_DOUBLE_EQ(context.Make(v1::FINDING_KIND_MODULE, "x", 5, false)
                       .share_of_step_change(),
                   0.5);
}

TEST(FindingContextTest, MakeFillsTheFindingAndItsShare) {
  const v1::Overview overview = GrownStep();
  FindingInputs in;
  in.overview = &overview;
  const FindingContext context(in);
  FindingEvidenceList evidence;
  evidence.Add()->set_name("Linear_0");
  const v1::Finding f = context.Make(v1::FINDING_KIND_MODULE, "Linear_0 grew",
                                     120, true, evidence);
  EXPECT_EQ(f.kind(), v1::FINDING_KIND_MODULE);
  EXPECT_EQ(f.text(), "Linear_0 grew");
  EXPECT_DOUBLE_EQ(f.delta_us(), 120);
  EXPECT_DOUBLE_EQ(f.share_of_step_change(), 0.6);
  EXPECT_TRUE(f.significant());
  ASSERT_EQ(f.evidence_size(), 1);
  EXPECT_EQ(f.evidence(0).name(), "Linear_0");
}

TEST(FindingContextTest, ShareClauseOnlyForDeltasWithTheStep) {
  const v1::Overview overview = GrownStep();
  FindingInputs in;
  in.overview = &overview;
  const FindingContext context(in);
  EXPECT_EQ(context.ShareClause(120), ", 60% of the step-time change");
  EXPECT_EQ(context.ShareClause(1), ", <1% of the step-time change");
  EXPECT_EQ(context.ShareClause(-120), "");
  EXPECT_EQ(context.ShareClause(0), "");
}

TEST(FindingContextTest, AgainstTheStepSaysWhichWayTheDeviceIdled) {
  v1::Overview overview = GrownStep();
  FindingInputs in;
  in.overview = &overview;
  EXPECT_EQ(FindingContext(in).AgainstTheStep(-30),
            "; the step grew nonetheless: the device idles more of it");
  EXPECT_EQ(FindingContext(in).AgainstTheStep(30), "");
  EXPECT_EQ(FindingContext(in).AgainstTheStep(0), "");
  v1::OverviewRow& step = *overview.mutable_rows(0);
  step.set_experimental(800);
  step.set_delta(-200);
  EXPECT_EQ(FindingContext(in).AgainstTheStep(30),
            "; the step shrank nonetheless: the device idles less of it");
}

TEST(FindingContextTest, SameSignIsStrict) {
  EXPECT_TRUE(SameSign(1, 2));
  EXPECT_TRUE(SameSign(-1, -0.5));
  EXPECT_FALSE(SameSign(1, -1));
  EXPECT_FALSE(SameSign(0, 1));
  EXPECT_FALSE(SameSign(0, 0));
}

}  // namespace
}  // namespace profdiff::differ
