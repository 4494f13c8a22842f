#include "aggregator/clickhouse/durable_prefix.h"

#include <gtest/gtest.h>

namespace profdiff::aggregator::clickhouse {
namespace {

TEST(DurablePrefixTest, ChunksInOrderCountAsTheyAreStored) {
  DurablePrefix prefix;
  EXPECT_EQ(prefix.durable(), -1);
  prefix.Stored(0, 10, 100);
  prefix.Stored(1, 5, 50);
  EXPECT_EQ(prefix.durable(), 1);
  EXPECT_EQ(prefix.events(), 15);
  EXPECT_EQ(prefix.bytes(), 150u);
}

TEST(DurablePrefixTest, AChunkPastAGapCountsOnceTheGapIsFilled) {
  DurablePrefix prefix;
  prefix.Stored(0, 1, 10);
  prefix.Stored(2, 3, 30);  // chunk 1 is retried on another shard
  prefix.Stored(3, 4, 40);
  EXPECT_EQ(prefix.durable(), 0);
  EXPECT_EQ(prefix.events(), 1);
  EXPECT_EQ(prefix.ahead(), 2u);
  prefix.Stored(1, 2, 20);
  EXPECT_EQ(prefix.durable(), 3);
  EXPECT_EQ(prefix.events(), 1 + 2 + 3 + 4);
  EXPECT_EQ(prefix.bytes(), 100u);
  EXPECT_EQ(prefix.ahead(), 0u);
}

TEST(DurablePrefixTest, AChunkStoredTwiceCountsOnce) {
  DurablePrefix prefix;
  prefix.Stored(0, 7, 70);
  prefix.Stored(0, 7, 70);  // a retried write that had landed after all
  prefix.Stored(2, 1, 1);
  prefix.Stored(2, 1, 1);
  prefix.Stored(1, 2, 2);
  EXPECT_EQ(prefix.durable(), 2);
  EXPECT_EQ(prefix.events(), 10);
}

TEST(DurablePrefixTest, DroppedChunksPastTheGapAreNotCountedWhenItFills) {
  DurablePrefix prefix;
  prefix.Stored(0, 1, 1);
  prefix.Stored(2, 1, 1);
  prefix.DropAhead();  // chunk 1 failed: 2 comes again after it
  prefix.Stored(1, 1, 1);
  EXPECT_EQ(prefix.durable(), 1);
  EXPECT_EQ(prefix.events(), 2);
}

}  // namespace
}  // namespace profdiff::aggregator::clickhouse
