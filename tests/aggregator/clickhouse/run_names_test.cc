#include "aggregator/clickhouse/run_names.h"

#include <gtest/gtest.h>

namespace profdiff::aggregator::clickhouse {
namespace {

using Send = std::vector<bool>;

TEST(RunNamesTest, ANameIsSkippedOnlyOnceAChunkCarryingItIsStored) {
  RunNames names(100);
  EXPECT_EQ(names.Claim("run", {1, 2}), Send({true, true}));
  // In flight with the first chunk: another chunk carries them too.
  EXPECT_EQ(names.Claim("run", {2, 3}), Send({true, true}));
  names.Stored("run", {1, 2});
  EXPECT_EQ(names.Claim("run", {1, 2, 3}), Send({false, false, true}));
  // Per run.
  EXPECT_EQ(names.Claim("other", {1}), Send({true}));
}

TEST(RunNamesTest, AFailedChunksNamesAreCarriedAgain) {
  RunNames names(100);
  names.Claim("run", {1, 2});
  names.Claim("run", {2});
  names.Stored("run", {2});  // the second chunk stored it
  names.Failed("run", {1, 2});
  EXPECT_EQ(names.Claim("run", {1, 2}), Send({true, false}));
}

TEST(RunNamesTest, PastTheBoundEverythingIsSentAgain) {
  RunNames names(3);
  names.Claim("run", {1, 2});
  names.Stored("run", {1, 2});
  EXPECT_EQ(names.ids(), 2u);
  EXPECT_EQ(names.Claim("run", {3, 4}), Send({true, true}));
  EXPECT_EQ(names.ids(), 2u);
  EXPECT_EQ(names.Claim("run", {1}), Send({true}));
}

}  // namespace
}  // namespace profdiff::aggregator::clickhouse
