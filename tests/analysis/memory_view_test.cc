// The memory view (SEMANTICS.md §7), through the profile of a small
// hand-written trace: every expected number is worked out in the comments from
// the event times (µs).
#include "analysis/memory_view.h"

#include <string>

#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "tests/analysis/fixture_trace.h"

namespace profdiff::analysis {
namespace {

using fixture::Fixture;
using fixture::Profile;

TEST(MemoryViewTest, PeakAndTimeWeightedAverage) {
  const v1::WorkerProfile p = Profile(Fixture(true));
  ASSERT_EQ(p.memory_size(), 1);
  EXPECT_EQ(p.memory(0).device(), "cuda:0");
  EXPECT_EQ(p.memory(0).peak_allocated_bytes(), 300);
  EXPECT_EQ(p.memory(0).peak_reserved_bytes(), 1024);
  // 100 for 100 µs, then 300 for 50 µs, over [10,160].
  EXPECT_DOUBLE_EQ(p.memory(0).average_allocated_bytes(),
                   (100.0 * 100 + 300.0 * 50) / 150);
}

}  // namespace
}  // namespace profdiff::analysis
