#include "aggregator/store/run_state.h"

#include <gtest/gtest.h>

namespace profdiff::aggregator {
namespace {

TEST(RunStateTest, CompleteOpenPartialAndReopened) {
  const absl::Time now = absl::FromUnixSeconds(1000);
  const absl::Duration idle = absl::Minutes(10);
  RunActivity activity{.world_size = 2,
                       .closed_ranks = 1,
                       .open_spans = 0,
                       .last_activity = now};
  EXPECT_EQ(RunStateOf(activity, now, idle), v1::RUN_STATE_OPEN);
  EXPECT_EQ(RunStateOf(activity, now + idle, idle), v1::RUN_STATE_PARTIAL);
  activity.closed_ranks = 2;
  EXPECT_EQ(RunStateOf(activity, now + idle, idle), v1::RUN_STATE_COMPLETE);
  activity.open_spans = 1;  // a late span
  EXPECT_EQ(RunStateOf(activity, now, idle), v1::RUN_STATE_OPEN);
}

}  // namespace
}  // namespace profdiff::aggregator
