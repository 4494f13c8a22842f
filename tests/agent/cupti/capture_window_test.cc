// PROFDIFF_CAPTURE's grammar and the window it opens and closes on steps
// (ProfilerStep ranges or cudaProfilerStart/Stop), on time, and at exit.
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

}  // namespace
}  // namespace profdiff::agent::cupti
