// The headline (differ/findings/step_time.h): the step time's change first,
// significant with its interval, or "no significant change" with the noise
// and the thresholds when nothing else changed either.
#include "differ/findings/step_time.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ::testing {
namespace {

using ::testing::HasSubstr;

TEST(StepTimeTest, HeadlineSaysTheStepTimeChangeAndItsInterval) {
  const v1::DiffReport report =
      Diff(Profile("a", Model(100, 100)), Profile("b", Model(400, 100)));
  ASSERT_GE(report.findings_size(), 2) << Texts(report);
  const v1::Finding& headline = report.findings(0);
  EXPECT_EQ(headline.kind(), v1::FINDING_KIND_STEP_TIME);
  EXPECT_TRUE(headline.significant());
  EXPECT_THAT(headline.text(),
              HasSubstr("Step time 700 us -> 1.6 ms per step (+900 us, +129%), "
                        "significant (95% CI of the delta"));
  EXPECT_DOUBLE_EQ(headline.delta_us(), 900);
  EXPECT_DOUBLE_EQ(headline.share_of_step_change(), 1);
  ASSERT_EQ(headline.evidence_size(), 1);
  EXPECT_EQ(headline.evidence(0).table(), v1::EVIDENCE_TABLE_OVERVIEW);
  EXPECT_EQ(headline.evidence(0).name(), "Average step time");
}

TEST(StepTimeTest, NothingSignificantSaysSoWithTheNoise) {
  const v1::DiffReport report =
      Diff(Profile("a", Model(100, 100)), Profile("b", Model(100, 100)));
  ASSERT_EQ(report.findings_size(), 1) << Texts(report);
  const v1::Finding& f = report.findings(0);
  EXPECT_EQ(f.kind(), v1::FINDING_KIND_NOISE);
  EXPECT_FALSE(f.significant());
  EXPECT_THAT(f.text(), HasSubstr("No significant change: step time 700 us -> "
                                  "700 us per step (0 us, 0%)"));
  EXPECT_THAT(f.text(), HasSubstr("includes 0 (thresholds: 5% and 0.7 us)"));
  EXPECT_THAT(f.text(), HasSubstr("per-step spread"));
}

TEST(StepTimeTest, SmallChangeUnderTheThresholdIsNoChange) {
  // 2% slower with a tight spread: the interval excludes 0, the 5% threshold
  // does not pass.
  const v1::DiffReport report =
      Diff(Profile("a", Model(100, 100)), Profile("b", Model(109.33, 100)));
  ASSERT_EQ(report.findings_size(), 1) << Texts(report);
  EXPECT_EQ(report.findings(0).kind(), v1::FINDING_KIND_NOISE);
  EXPECT_THAT(report.findings(0).text(),
              HasSubstr("excludes 0 but the delta is under the thresholds"));
}

}  // namespace
}  // namespace profdiff::differ::testing
