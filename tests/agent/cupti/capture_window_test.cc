// PROFDIFF_CAPTURE's grammar and the window it opens and closes on steps
// (ProfilerStep ranges or cudaProfilerStart/Stop), on time, and at exit; and
// the windows the agent orders (on-demand capture, issue 26).
#include "agent/cupti/capture_window.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::agent::cupti {
namespace {

using ::testing::HasSubstr;
using State = CaptureWindow::State;

constexpr uint64_t kSecond = 1'000'000'000;

TEST(CaptureSpecTest, ParsesEveryForm) {
  EXPECT_EQ(ParseCaptureSpec("")->mode, CaptureMode::kAlways);
  EXPECT_EQ(ParseCaptureSpec("always")->mode, CaptureMode::kAlways);
  absl::StatusOr<CaptureSpec> steps = ParseCaptureSpec("steps:10-20");
  ASSERT_TRUE(steps.ok()) << steps.status();
  EXPECT_EQ(steps->mode, CaptureMode::kSteps);
  EXPECT_EQ(steps->first, 10);
  EXPECT_EQ(steps->last, 20);
  EXPECT_EQ(ParseCaptureSpec("steps:7")->last, 7);
  absl::StatusOr<CaptureSpec> seconds = ParseCaptureSpec("seconds:30");
  ASSERT_TRUE(seconds.ok());
  EXPECT_EQ(seconds->first, 0);
  EXPECT_EQ(seconds->last, 30);
  EXPECT_EQ(CaptureSpecText(*ParseCaptureSpec("seconds:5-35")), "seconds:5-35");
  EXPECT_EQ(ParseCaptureSpec("on-demand")->mode, CaptureMode::kOnDemand);
  EXPECT_EQ(CaptureSpecText(*ParseCaptureSpec("on-demand")), "on-demand");
}

TEST(CaptureSpecTest, MalformedSpecsNameTheVariableAndTheGrammar) {
  for (const char* bad : {"steps:20-10", "steps:-1", "steps:", "seconds:0",
                          "seconds:x", "minutes:3", "steps:1-2-3"}) {
    absl::StatusOr<CaptureSpec> spec = ParseCaptureSpec(bad);
    ASSERT_FALSE(spec.ok()) << bad;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(spec.status().message(), HasSubstr("PROFDIFF_CAPTURE"));
    EXPECT_THAT(spec.status().message(), HasSubstr("steps:A-B"));
  }
}

TEST(CaptureWindowTest, AlwaysIsOpenFromInjectionUntilExit) {
  CaptureWindow window(*ParseCaptureSpec("always"), 100);
  EXPECT_EQ(window.state(), State::kOpen);
  EXPECT_EQ(window.begin_ns(), 100u);
  window.OnExit(900);
  EXPECT_EQ(window.state(), State::kClosed);
  EXPECT_EQ(window.end_ns(), 900u);
}

TEST(CaptureWindowTest,
     StepsOpenAtTheFirstStepsStartAndCloseAtTheLastStepsEnd) {
  CaptureWindow window(*ParseCaptureSpec("steps:2-3"), 0);
  window.OnStepRangeStart(1, 100);
  window.OnStepRangeEnd(1, 190);
  EXPECT_EQ(window.state(), State::kWaiting);
  window.OnStepRangeStart(2, 200);
  EXPECT_EQ(window.state(), State::kOpen);
  window.OnStepRangeEnd(2, 290);
  window.OnStepRangeStart(3, 300);
  EXPECT_EQ(window.state(), State::kOpen);
  window.OnStepRangeEnd(3, 390);
  EXPECT_EQ(window.state(), State::kClosed);
  EXPECT_EQ(window.begin_ns(), 200u);
  EXPECT_EQ(window.end_ns(), 390u);
  window.OnStepRangeStart(2, 1000);  // a window opens once
  EXPECT_EQ(window.state(), State::kClosed);
}

TEST(CaptureWindowTest, AStepPastTheWindowClosesItWhenTheLastEndWasMissed) {
  CaptureWindow window(*ParseCaptureSpec("steps:5"), 0);
  window.OnStepRangeStart(5, 500);
  window.OnStepRangeStart(6, 600);
  EXPECT_EQ(window.state(), State::kClosed);
  EXPECT_EQ(window.end_ns(), 600u);
}

TEST(CaptureWindowTest, CudaProfilerStartStopCountStepsFromZero) {
  CaptureWindow window(*ParseCaptureSpec("steps:1-1"), 0);
  window.OnProfilerStart(100);  // step 0
  window.OnProfilerStop(150);
  EXPECT_EQ(window.state(), State::kWaiting);
  window.OnProfilerStart(200);  // step 1
  EXPECT_EQ(window.state(), State::kOpen);
  window.OnStepRangeStart(
      7, 220);  // the other marker kind is ignored once one was seen
  window.OnProfilerStop(250);
  EXPECT_EQ(window.state(), State::kClosed);
  EXPECT_EQ(window.begin_ns(), 200u);
  EXPECT_EQ(window.end_ns(), 250u);
}

TEST(CaptureWindowTest, SecondsCountFromInjection) {
  CaptureWindow window(*ParseCaptureSpec("seconds:2-5"), 10 * kSecond);
  window.OnTime(11 * kSecond);
  EXPECT_EQ(window.state(), State::kWaiting);
  window.OnTime(12 * kSecond + 7);
  EXPECT_EQ(window.state(), State::kOpen);
  EXPECT_EQ(window.begin_ns(),
            12 * kSecond);  // where it should have opened, not when seen
  window.OnTime(16 * kSecond);
  EXPECT_EQ(window.state(), State::kClosed);
  EXPECT_EQ(window.end_ns(), 15 * kSecond);
}

TEST(CaptureWindowTest, ExitClosesAnOpenStepWindowAndLeavesAWaitingOneEmpty) {
  CaptureWindow open(*ParseCaptureSpec("steps:0-100"), 0);
  open.OnStepRangeStart(0, 10);
  open.OnExit(50);
  EXPECT_EQ(open.state(), State::kClosed);
  EXPECT_EQ(open.end_ns(), 50u);
  CaptureWindow waiting(*ParseCaptureSpec("steps:10-20"), 0);
  waiting.OnExit(50);
  EXPECT_EQ(waiting.state(), State::kWaiting);
}

TEST(OrderedWindowTest, OnDemandIsIdleUntilAnOrderArmsTheNextSteps) {
  CaptureWindow window(*ParseCaptureSpec("on-demand"), 0);
  EXPECT_EQ(window.state(), State::kIdle);
  window.OnStepRangeStart(3, 300);
  window.OnStepRangeEnd(3, 390);
  EXPECT_EQ(window.state(), State::kIdle);
  // Armed during step 4: the next step to start is 5, so steps 5 and 6.
  window.OnStepRangeStart(4, 400);
  ASSERT_TRUE(window.Arm({.steps = 2}, 450).ok());
  EXPECT_EQ(window.state(), State::kWaiting);
  EXPECT_EQ(window.Describe(), "the next 2 steps");
  window.OnStepRangeEnd(4, 490);
  window.OnStepRangeStart(5, 500);
  EXPECT_EQ(window.state(), State::kOpen);
  EXPECT_EQ(window.Describe(), "steps 5-6");
  window.OnStepRangeEnd(5, 590);
  window.OnStepRangeStart(6, 600);
  window.OnStepRangeEnd(6, 690);
  EXPECT_EQ(window.state(), State::kClosed);
  EXPECT_EQ(window.begin_ns(), 500u);
  EXPECT_EQ(window.end_ns(), 690u);
}

TEST(OrderedWindowTest, AnOrderWhileAWindowWaitsOrIsOpenIsRefused) {
  CaptureWindow window(*ParseCaptureSpec("steps:10-20"), 0);
  absl::Status busy = window.Arm({.steps = 1}, 5);
  EXPECT_EQ(busy.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(busy.message(), HasSubstr("already capturing (steps 10-20)"));
  CaptureWindow always(*ParseCaptureSpec("always"), 0);
  EXPECT_THAT(always.Arm({.steps = 1}, 5).message(),
              HasSubstr("PROFDIFF_CAPTURE=always"));
  // Once PROFDIFF_CAPTURE's window closed, an order starts another.
  window.OnStepRangeStart(10, 100);
  window.OnStepRangeEnd(20, 200);
  ASSERT_EQ(window.state(), State::kClosed);
  ASSERT_TRUE(window.Arm({.steps = 1, .start_at_step = 30}, 250).ok());
  window.OnStepRangeStart(29, 290);
  EXPECT_EQ(window.state(), State::kWaiting);
  window.OnStepRangeStart(30, 300);
  window.OnStepRangeEnd(30, 390);
  EXPECT_EQ(window.state(), State::kClosed);
  EXPECT_EQ(window.begin_ns(), 300u);
  EXPECT_EQ(window.end_ns(), 390u);
}

TEST(OrderedWindowTest, AStartStepThatHasStartedAndAnEmptyOrderAreRefused) {
  CaptureWindow window(*ParseCaptureSpec("on-demand"), 0);
  window.OnStepRangeStart(7, 700);
  absl::Status passed = window.Arm({.steps = 2, .start_at_step = 7}, 750);
  EXPECT_EQ(passed.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(passed.message(),
              HasSubstr("step 7 has already started (the process is at step "
                        "7)"));
  EXPECT_EQ(window.Arm({}, 750).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(window.state(), State::kIdle);
  EXPECT_TRUE(window.Arm({.steps = 2, .start_at_step = 8}, 750).ok());
}

// Regression for #42: a window waiting for step 2^62 held the process (and
// its job) busy until its deadline.
TEST(OrderedWindowTest, AStartStepFarPastTheProcessesStepIsRefused) {
  CaptureWindow window(*ParseCaptureSpec("on-demand"), 0);
  window.OnStepRangeStart(7, 700);
  EXPECT_EQ(window.last_step_started(), 7);
  const absl::Status far =
      window.Arm({.steps = 2, .start_at_step = 7 + kMaxStepsAhead + 1}, 750);
  EXPECT_EQ(far.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(far.message(),
              HasSubstr("is more than 100000 steps after the step the process "
                        "is at (7)"));
  EXPECT_EQ(window.state(), State::kIdle);
  EXPECT_TRUE(
      window.Arm({.steps = 2, .start_at_step = 7 + kMaxStepsAhead}, 750).ok());
}

TEST(OrderedWindowTest, ADurationOpensWhenArmedAndClosesWhenItHasPassed) {
  CaptureWindow window(*ParseCaptureSpec("on-demand"), 0);
  ASSERT_TRUE(window.Arm({.duration_ns = 3 * kSecond}, 10 * kSecond).ok());
  EXPECT_EQ(window.state(), State::kOpen);
  EXPECT_EQ(window.begin_ns(), 10 * kSecond);
  EXPECT_EQ(window.Describe(), "3000 ms");
  window.OnTime(12 * kSecond);
  EXPECT_EQ(window.state(), State::kOpen);
  window.OnTime(13 * kSecond + 5);
  EXPECT_EQ(window.state(), State::kClosed);
  EXPECT_EQ(window.end_ns(), 13 * kSecond);
}

TEST(OrderedWindowTest, CudaProfilerStepsGoOnCountingAcrossWindows) {
  CaptureWindow window(*ParseCaptureSpec("on-demand"), 0);
  window.OnProfilerStart(100);  // step 0
  window.OnProfilerStop(150);
  ASSERT_TRUE(window.Arm({.steps = 1}, 160).ok());
  window.OnProfilerStart(200);  // step 1
  window.OnProfilerStop(250);
  EXPECT_EQ(window.state(), State::kClosed);
  // Step 1 has started: a window from step 1 is refused, from step 2 taken.
  EXPECT_FALSE(window.Arm({.steps = 1, .start_at_step = 1}, 260).ok());
  ASSERT_TRUE(window.Arm({.steps = 1, .start_at_step = 2}, 260).ok());
  window.OnProfilerStart(300);  // step 2
  EXPECT_EQ(window.state(), State::kOpen);
  EXPECT_EQ(window.begin_ns(), 300u);
}

TEST(OrderedWindowTest,
     ADeadlineIdlesAWindowThatNeverOpenedAndClosesAnOpenOne) {
  CaptureWindow waiting(*ParseCaptureSpec("on-demand"), 0);
  ASSERT_TRUE(waiting.Arm({.steps = 3}, 10).ok());
  waiting.Expire(90);  // no step ever started
  EXPECT_EQ(waiting.state(), State::kIdle);
  EXPECT_TRUE(waiting.Arm({.steps = 1}, 100).ok());  // a later order is taken

  CaptureWindow open(*ParseCaptureSpec("on-demand"), 0);
  ASSERT_TRUE(open.Arm({.steps = 3}, 10).ok());
  open.OnStepRangeStart(0, 20);
  open.Expire(90);
  EXPECT_EQ(open.state(), State::kClosed);
  EXPECT_EQ(open.begin_ns(), 20u);
  EXPECT_EQ(open.end_ns(), 90u);
}

}  // namespace
}  // namespace profdiff::agent::cupti
