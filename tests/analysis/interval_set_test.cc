#include "analysis/interval_set.h"

#include <gtest/gtest.h>

namespace profdiff::analysis {
namespace {

TEST(IntervalSetTest, MergesOverlappingAndTouching) {
  const auto merged =
      MergeIntervals({{5, 10}, {0, 3}, {3, 4}, {8, 12}, {20, 20}});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_EQ(merged[0].start_ns, 0);
  EXPECT_EQ(merged[0].end_ns, 4);
  EXPECT_EQ(merged[1].start_ns, 5);
  EXPECT_EQ(merged[1].end_ns, 12);
  EXPECT_EQ(TotalLength(merged), 4 + 7);
}

TEST(IntervalSetTest, ClipUnionIntersection) {
  const std::vector<Interval> a = {{0, 10}, {20, 30}};
  const std::vector<Interval> b = {{5, 25}};
  EXPECT_EQ(TotalLength(Clip(a, 8, 22)), 2 + 2);
  EXPECT_EQ(TotalLength(Intersection(a, b)), 5 + 5);
  EXPECT_EQ(TotalLength(Union(a, b)), 30);
}

TEST(IntervalSetTest, DifferenceKeepsWhatNoIntervalOfTheOtherCovers) {
  const std::vector<Interval> a = {{0, 10}, {20, 30}, {40, 50}};
  const std::vector<Interval> b = {{2, 4}, {6, 22}, {25, 26}, {40, 50}};
  const std::vector<Interval> d = Difference(a, b);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].start_ns, 0);
  EXPECT_EQ(d[0].end_ns, 2);
  EXPECT_EQ(d[1].start_ns, 4);
  EXPECT_EQ(d[1].end_ns, 6);
  EXPECT_EQ(d[2].start_ns, 22);
  EXPECT_EQ(d[2].end_ns, 25);
  EXPECT_EQ(d[3].start_ns, 26);
  EXPECT_EQ(d[3].end_ns, 30);
  EXPECT_TRUE(Difference(a, {}).size() == a.size());
  EXPECT_TRUE(Difference({}, b).empty());
}

}  // namespace
}  // namespace profdiff::analysis
