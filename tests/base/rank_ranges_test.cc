// Ranks printed as ranges (base/rank_ranges.h), as --ranks reads them.
#include "base/rank_ranges.h"

#include <numeric>
#include <vector>

#include <gtest/gtest.h>

namespace profdiff::base {
namespace {

TEST(RankRangesTest, RunsOfThreeOrMoreAreRangesTheRestSingleRanks) {
  EXPECT_EQ(RankRanges(std::vector<int32_t>{}), "");
  EXPECT_EQ(RankRanges(std::vector<int32_t>{5}), "5");
  EXPECT_EQ(RankRanges(std::vector<int32_t>{0, 1, 2, 4, 6, 7}), "0-2,4,6,7");
  std::vector<int32_t> thousand(1024);
  std::iota(thousand.begin(), thousand.end(), 0);
  EXPECT_EQ(RankRanges(thousand), "0-1023");
}

TEST(RankRangesTest, PastTheLimitTheRestAreCounted) {
  // 0, 2, 4, ..., 18: ten single ranks; four shown, six counted.
  std::vector<int32_t> even;
  for (int32_t r = 0; r < 20; r += 2) even.push_back(r);
  EXPECT_EQ(RankRanges(even, 4), "0,2,4,6 and 6 more");
  EXPECT_EQ(RankRanges(std::vector<int32_t>{0, 1, 2, 3, 9, 10, 11}, 1),
            "0-3 and 3 more");
}

}  // namespace
}  // namespace profdiff::base
