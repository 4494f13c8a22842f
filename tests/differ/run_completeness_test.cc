// What a diff says about a stored run: missing ranks as capped ranges (a world
// size of a million costs one short line), and the store's own warnings.
#include "differ/run_completeness.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::differ {
namespace {

using ::testing::HasSubstr;

v1::StoredRun RunWithRanks(int32_t world_size,
                           const std::vector<int32_t>& ranks) {
  v1::StoredRun run;
  run.set_run("r");
  run.set_state(v1::RUN_STATE_PARTIAL);
  run.set_world_size(world_size);
  for (int32_t rank : ranks) run.add_closed_ranks(rank);
  return run;
}

TEST(RunCompletenessTest, MissingRanksAreRanges) {
  const std::optional<std::string> warning =
      IncompleteRunWarning(RunWithRanks(10, {0, 4, 5}));
  ASSERT_TRUE(warning.has_value());
  EXPECT_THAT(*warning,
              HasSubstr("3 of 10 ranks stored, missing ranks 1-3, 6-9;"));
}

TEST(RunCompletenessTest, AMillionRanksMakeAShortWarning) {
  std::vector<int32_t> every_other;
  for (int32_t rank = 0; rank < 100; rank += 2) every_other.push_back(rank);
  const std::optional<std::string> warning =
      IncompleteRunWarning(RunWithRanks(1 << 20, every_other));
  ASSERT_TRUE(warning.has_value());
  EXPECT_LT(warning->size(), 400u);
  EXPECT_THAT(*warning, HasSubstr("missing ranks 1, 3, 5,"));
  // 16 ranges listed; the rest counted: 34 odd ranks below 100 and every rank
  // from 100.
  EXPECT_THAT(*warning,
              HasSubstr(" and " + std::to_string(34 + (1 << 20) - 100) +
                        " more ranks"));
}

TEST(RunCompletenessTest, RunWarningsCarryTheStoresWarnings) {
  v1::StoredRun run = RunWithRanks(2, {0, 1});
  run.set_state(v1::RUN_STATE_COMPLETE);
  run.add_warnings("rank 0 is stored by 2 workers");
  EXPECT_THAT(RunWarnings(run),
              ::testing::ElementsAre("run r: rank 0 is stored by 2 workers"));
}

}  // namespace
}  // namespace profdiff::differ
