// ActivityBufferPool: a fixed number of aligned buffers; empty means CUPTI
// drops, and a foreign or double release is counted, not trusted.
#include "agent/cupti/activity_buffer_pool.h"

#include <cstdint>

#include <gtest/gtest.h>

namespace profdiff::agent::cupti {
namespace {

TEST(ActivityBufferPoolTest, HandsOutEachBufferOnceUntilReleased) {
  ActivityBufferPool pool(2, 1000);
  EXPECT_EQ(pool.buffer_bytes(), 1000u);  // already a multiple of 8
  uint8_t* a = pool.Acquire();
  uint8_t* b = pool.Acquire();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a, b);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % kActivityBufferAlignment, 0u);
  EXPECT_EQ(pool.Acquire(), nullptr);
  EXPECT_EQ(pool.exhausted(), 1);
  pool.Release(a);
  EXPECT_EQ(pool.Acquire(), a);
}

TEST(ActivityBufferPoolTest, SizesRoundUpToTheAlignment) {
  ActivityBufferPool pool(1, 1001);
  EXPECT_EQ(pool.buffer_bytes(), 1008u);
}

TEST(ActivityBufferPoolTest, ForeignAndDoubleReleasesAreIgnoredAndCounted) {
  ActivityBufferPool pool(1, 64);
  uint8_t* a = pool.Acquire();
  uint8_t stranger[64];
  pool.Release(stranger);
  pool.Release(a);
  pool.Release(a);
  EXPECT_EQ(pool.foreign_releases(), 2);
  EXPECT_EQ(pool.free_count(), 1u);
}

}  // namespace
}  // namespace profdiff::agent::cupti
