// Welch's interval and the practical thresholds (differ/noise.h), with the
// arithmetic worked out.
#include "differ/noise.h"

#include <gtest/gtest.h>

namespace profdiff::differ {
namespace {

TEST(StudentT975Test, MatchesTheTableAndTheNormalLimit) {
  EXPECT_DOUBLE_EQ(StudentT975(1), 12.706);
  EXPECT_DOUBLE_EQ(StudentT975(10), 2.228);
  EXPECT_DOUBLE_EQ(StudentT975(30), 2.042);
  EXPECT_NEAR(StudentT975(1e9), 1.960, 1e-3);
  // Between rows, monotone.
  EXPECT_LT(StudentT975(10.5), 2.228);
  EXPECT_GT(StudentT975(10.5), 2.201);
}

TEST(CompareSamplesTest, WelchIntervalWorkedOut) {
  // a: mean 10, sample variance 1 (n=3); b: mean 14, variance 4 (n=3).
  // se^2 = 1/3 + 4/3 = 5/3; df = (5/3)^2 / ((1/3)^2/2 + (4/3)^2/2)
  //   = 2.7778/0.9444 = 2.941
  // t(2.941) between t(2)=4.303 and t(3)=3.182:
  //   w = (1/2 - 1/2.941)/(1/2 - 1/3) = 0.9598,
  //   t = 4.303 - 0.9598 * 1.121 = 3.227;
  // half width = 3.227 * sqrt(5/3) = 4.166.
  const v1::Noise n = CompareSamples({9, 10, 11}, {12, 14, 16}, {5, 0});
  ASSERT_TRUE(n.has_interval());
  EXPECT_NEAR(n.ci_low(), 4 - 4.166, 0.01);
  EXPECT_NEAR(n.ci_high(), 4 + 4.166, 0.01);
  EXPECT_FALSE(n.significant());  // the interval holds 0
  EXPECT_NEAR(n.baseline_stddev(), 1, 1e-12);
  EXPECT_NEAR(n.experimental_stddev(), 2, 1e-12);
}

TEST(CompareSamplesTest, ClearShiftIsSignificant) {
  const v1::Noise n =
      CompareSamples({100, 101, 99, 100}, {120, 121, 119, 120}, {5, 0});
  EXPECT_TRUE(n.has_interval());
  EXPECT_GT(n.ci_low(), 0);
  EXPECT_TRUE(n.significant());
}

TEST(CompareSamplesTest, TinyButSteadyShiftIsNotSignificant) {
  // +1% with no spread: the interval excludes 0, but it is under min_pct (5%).
  const v1::Noise n = CompareSamples({100, 100, 100}, {101, 101, 101}, {5, 0});
  EXPECT_TRUE(n.has_interval());
  EXPECT_GT(n.ci_low(), 0);
  EXPECT_FALSE(n.significant());
  // And a large relative change of a microsecond-sized value is under min_abs.
  EXPECT_FALSE(CompareSamples({1, 1, 1}, {2, 2, 2}, {5, 10}).significant());
}

TEST(CompareSamplesTest, OneSampleGivesNoInterval) {
  const v1::Noise n = CompareSamples({100}, {200, 210}, {5, 0});
  EXPECT_FALSE(n.has_interval());
  EXPECT_FALSE(n.significant());
  EXPECT_EQ(n.baseline_samples(), 1);
  EXPECT_EQ(n.experimental_samples(), 2);
}

TEST(CompareSamplesTest, IdenticalSamplesAreNotSignificant) {
  const v1::Noise n = CompareSamples({5, 7, 9}, {5, 7, 9}, {0, 0});
  EXPECT_TRUE(n.has_interval());
  EXPECT_LT(n.ci_low(), 0);
  EXPECT_GT(n.ci_high(), 0);
  EXPECT_FALSE(n.significant());
}

TEST(ChangeThresholdOfTest, DefaultsOverridesAndNegatives) {
  v1::DiffOptions options;
  absl::StatusOr<ChangeThreshold> t = ChangeThresholdOf(options, 12.5);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_DOUBLE_EQ(t->min_pct, 5);
  EXPECT_DOUBLE_EQ(t->min_abs, 12.5);
  options.set_min_change_pct(0);
  options.set_min_change_us(3);
  t = ChangeThresholdOf(options, 12.5);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_DOUBLE_EQ(t->min_pct, 0);
  EXPECT_DOUBLE_EQ(t->min_abs, 3);
  options.set_min_change_us(-1);
  EXPECT_EQ(ChangeThresholdOf(options, 12.5).status().message(),
            "--min-change / --min-change-us: must be >= 0");
  options.clear_min_change_us();
  options.set_min_change_pct(-0.5);
  EXPECT_EQ(ChangeThresholdOf(options, 12.5).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace profdiff::differ
