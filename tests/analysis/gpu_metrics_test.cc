// GPU metrics (docs/semantics.md §4), through the profile of a small
// hand-written trace: every expected number is worked out in the comments from
// the event times (µs).
#include "analysis/gpu_metrics.h"

#include <string>

#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "tests/analysis/fixture_trace.h"

namespace profdiff::analysis {
namespace {

using fixture::Fixture;
using fixture::Profile;

TEST(GpuMetricsTest, UtilizationSmEfficiencyAndOccupancy) {
  const v1::WorkerProfile p = Profile(Fixture(/*with_memset=*/true));
  ASSERT_EQ(p.devices_size(), 1);
  // Span [0,170): kernels [45,95] and [130,170] -> 90 busy.
  EXPECT_DOUBLE_EQ(p.devices(0).gpu_utilization(), 90.0 / 170.0);
  // min(0.5,1)·50 + min(2,1)·40 = 65.
  EXPECT_DOUBLE_EQ(p.devices(0).sm_efficiency(), 65.0 / 170.0);
  // (40·50 + 60·40) / 90.
  EXPECT_DOUBLE_EQ(p.devices(0).achieved_occupancy_pct(), 4400.0 / 90.0);
  EXPECT_DOUBLE_EQ(p.gpu_utilization(), 90.0 / 170.0);
}

}  // namespace
}  // namespace profdiff::analysis
