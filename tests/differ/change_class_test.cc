// An operator or kernel row's change class (differ/change_class.h): added and
// deleted by presence, increased/decreased by the noise interval when there is
// one, else by the thresholds alone.
#include "differ/change_class.h"

#include <gtest/gtest.h>

namespace profdiff::differ {
namespace {

v1::Noise NoInterval() { return v1::Noise(); }

v1::Noise Interval(bool significant) {
  v1::Noise noise;
  noise.set_has_interval(true);
  noise.set_significant(significant);
  return noise;
}

TEST(ChangeClassTest, PresenceOnOneSideIsAddedOrDeleted) {
  const ChangeThreshold t;
  EXPECT_EQ(ChangeClass(false, true, 0, 5, NoInterval(), t), v1::CHANGE_ADDED);
  EXPECT_EQ(ChangeClass(true, false, 5, 0, NoInterval(), t),
            v1::CHANGE_DELETED);
  // Even with a noise interval that says nothing moved.
  EXPECT_EQ(ChangeClass(false, true, 0, 5, Interval(false), t),
            v1::CHANGE_ADDED);
}

TEST(ChangeClassTest, WithAnIntervalOnlySignificanceCounts) {
  const ChangeThreshold t{.min_pct = 5, .min_abs = 0};
  // +50% but the interval includes 0: unchanged.
  EXPECT_EQ(ChangeClass(true, true, 100, 150, Interval(false), t),
            v1::CHANGE_UNCHANGED);
  EXPECT_EQ(ChangeClass(true, true, 100, 150, Interval(true), t),
            v1::CHANGE_INCREASED);
  EXPECT_EQ(ChangeClass(true, true, 100, 50, Interval(true), t),
            v1::CHANGE_DECREASED);
}

TEST(ChangeClassTest, WithoutAnIntervalTheThresholdsDecide) {
  const ChangeThreshold t{.min_pct = 5, .min_abs = 10};
  // 5% of 1000 is 50 and 50 >= 10: moved; exactly at the threshold counts.
  EXPECT_EQ(ChangeClass(true, true, 1000, 1050, NoInterval(), t),
            v1::CHANGE_INCREASED);
  EXPECT_EQ(ChangeClass(true, true, 1000, 950, NoInterval(), t),
            v1::CHANGE_DECREASED);
  // 4.9%: under the relative threshold.
  EXPECT_EQ(ChangeClass(true, true, 1000, 1049, NoInterval(), t),
            v1::CHANGE_UNCHANGED);
  // +50% but 5 us is under --min-change-us 10.
  EXPECT_EQ(ChangeClass(true, true, 10, 15, NoInterval(), t),
            v1::CHANGE_UNCHANGED);
}

TEST(ChangeClassTest, NoDeltaIsUnchangedEvenWithZeroThresholds) {
  const ChangeThreshold zero{.min_pct = 0, .min_abs = 0};
  EXPECT_EQ(ChangeClass(true, true, 7, 7, NoInterval(), zero),
            v1::CHANGE_UNCHANGED);
  EXPECT_EQ(ChangeClass(true, true, 0, 0, NoInterval(), zero),
            v1::CHANGE_UNCHANGED);
  EXPECT_EQ(ChangeClass(true, true, 7, 7.001, NoInterval(), zero),
            v1::CHANGE_INCREASED);
}

}  // namespace
}  // namespace profdiff::differ
