#include "agent/kineto_on_demand_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::agent {
namespace {

using ::testing::HasSubstr;

TEST(KinetoOnDemandConfigTest, StepsCaptureStartsAtTheNextStepUnlessToldWhen) {
  // The folder is the process's own (capture_folder.h).
  const std::string folder =
      "/var/log/train/profdiff-captures/j-capture-1/4242-00112233aabbccdd";
  const KinetoCaptureConfig capture = KinetoOnDemandConfig(
      {.capture_id = "j-capture-1", .run = "j-capture-1", .steps = 3}, folder,
      4242);
  EXPECT_EQ(capture.trace_file, folder + "/j-capture-1_4242.pt.trace.json");
  EXPECT_EQ(capture.config, "ACTIVITIES_LOG_FILE=" + folder +
                                "/j-capture-1.pt.trace.json\n"
                                "PROFILE_START_ITERATION=0\n"
                                "PROFILE_START_ITERATION_ROUNDUP=1\n"
                                "ACTIVITIES_ITERATIONS=3\n"
                                "PROFILE_REPORT_INPUT_SHAPES=true\n"
                                "PROFILE_WITH_STACK=true\n"
                                "PROFILE_WITH_MODULES=true\n"
                                "REQUEST_TRACE_ID=j-capture-1\n");
  EXPECT_THAT(
      KinetoOnDemandConfig(
          {.capture_id = "c", .run = "r", .steps = 5, .start_at_step = 100},
          "/l", 1)
          .config,
      HasSubstr("PROFILE_START_ITERATION=100\n"));
}

TEST(KinetoOnDemandConfigTest, DurationCaptureStartsNow) {
  const KinetoCaptureConfig capture = KinetoOnDemandConfig(
      {.capture_id = "c", .run = "r", .duration = absl::Seconds(2)}, "/l", 7);
  EXPECT_THAT(
      capture.config,
      HasSubstr("PROFILE_START_TIME=0\nACTIVITIES_DURATION_MSECS=2000\n"));
  EXPECT_THAT(capture.config, ::testing::Not(HasSubstr("ITERATION")));
}

TEST(KinetoOnDemandConfigTest, SpecsAreCheckedNamingTheField) {
  EXPECT_TRUE(
      CheckKinetoCaptureSpec({.capture_id = "c", .run = "r", .steps = 1}).ok());
  EXPECT_THAT(
      CheckKinetoCaptureSpec({.capture_id = "../x", .run = "r", .steps = 1})
          .message(),
      HasSubstr("capture id"));
  EXPECT_THAT(
      CheckKinetoCaptureSpec({.capture_id = "c", .run = "a/b", .steps = 1})
          .message(),
      HasSubstr("run"));
  EXPECT_THAT(CheckKinetoCaptureSpec({.capture_id = "c", .run = "r"}).message(),
              HasSubstr("either steps or a duration"));
  EXPECT_THAT(CheckKinetoCaptureSpec({.capture_id = "c",
                                      .run = "r",
                                      .steps = 2,
                                      .duration = absl::Seconds(1)})
                  .message(),
              HasSubstr("either steps or a duration"));
  EXPECT_THAT(
      CheckKinetoCaptureSpec(
          {.capture_id = "c", .run = "r", .duration = absl::Microseconds(10)})
          .message(),
      HasSubstr("under the 1 ms"));
  EXPECT_THAT(
      CheckKinetoCaptureSpec({.capture_id = "c", .run = "r", .steps = -1})
          .message(),
      HasSubstr("negative"));
}

}  // namespace
}  // namespace profdiff::agent
