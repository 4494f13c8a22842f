// A wait that a stop request cuts short (stoppable_wait.cc).
#include "base/stoppable_wait.h"

#include <stop_token>
#include <thread>

#include <absl/synchronization/notification.h>
#include <absl/time/clock.h>
#include <gtest/gtest.h>

namespace profdiff::base {
namespace {

TEST(StoppableWaitTest, WholeTimeoutPassingIsTrue) {
  std::stop_source source;
  const absl::Time start = absl::Now();
  EXPECT_TRUE(WaitUnlessStopped(source.get_token(), absl::Milliseconds(5)));
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(5));
}

TEST(StoppableWaitTest, StopRequestedBeforeTheCallReturnsAtOnce) {
  std::stop_source source;
  source.request_stop();
  EXPECT_FALSE(WaitUnlessStopped(source.get_token(), absl::InfiniteDuration()));
}

TEST(StoppableWaitTest, StopFromAnotherThreadEndsTheWait) {
  std::stop_source source;
  absl::Notification waiting;
  std::jthread stopper([&] {
    waiting.WaitForNotification();
    source.request_stop();
  });
  waiting.Notify();
  EXPECT_FALSE(WaitUnlessStopped(source.get_token(), absl::InfiniteDuration()));
}

TEST(StoppableWaitTest, JthreadStopEndsAWaitInsideIt) {
  absl::Notification done;
  bool whole_timeout = true;
  {
    std::jthread worker([&](const std::stop_token& stop) {
      whole_timeout = WaitUnlessStopped(stop, absl::InfiniteDuration());
      done.Notify();
    });
  }  // ~jthread requests the stop, then joins
  EXPECT_TRUE(done.HasBeenNotified());
  EXPECT_FALSE(whole_timeout);
}

TEST(StoppableWaitTest, TokenWithoutAStopSourceWaitsOutTheTimeout) {
  EXPECT_TRUE(WaitUnlessStopped(std::stop_token(), absl::Milliseconds(1)));
}

}  // namespace
}  // namespace profdiff::base
