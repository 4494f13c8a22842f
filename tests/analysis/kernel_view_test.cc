// The kernel view (docs/semantics.md §5), through the profile of a small
// hand-written trace: every expected number is worked out in the comments from
// the event times (µs).
#include "analysis/kernel_view.h"

#include <string>

#include <gtest/gtest.h>

#include "analysis/worker_profile.h"
#include "tests/analysis/fixture_trace.h"

namespace profdiff::analysis {
namespace {

using fixture::Fixture;
using fixture::Profile;

TEST(KernelViewTest, StatsByNameAndByLaunchingOp) {
  const v1::WorkerProfile p =
      Profile(Fixture(true),
              {OperatorGrouping::kName, KernelGrouping::kNameAndOp, true});
  ASSERT_EQ(p.kernels_size(), 2);
  EXPECT_EQ(p.kernels(0).name(), "conv_kernel");
  EXPECT_EQ(p.kernels(0).op_name(), "aten::convolution");
  EXPECT_DOUBLE_EQ(p.kernels(0).total_us(), 50);
  EXPECT_DOUBLE_EQ(p.kernels(0).blocks_per_sm(), 0.5);
  EXPECT_EQ(p.kernels(1).op_name(), "aten::mm");
  EXPECT_DOUBLE_EQ(p.kernels(1).achieved_occupancy_pct(), 60);
}

}  // namespace
}  // namespace profdiff::analysis
