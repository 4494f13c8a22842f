// One-line logging to stderr (log.cc): the line's shape, the verbosity that
// PD_VLOG obeys, and that fatal lines and failed checks abort.
#include "base/log.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::base {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;

// Restores verbosity 0 however the test ends.
class LogTest : public ::testing::Test {
 protected:
  void TearDown() override { SetLogVerbosity(0); }
};

TEST_F(LogTest, LineIsSeverityUtcTimeShortFileLineAndMessage) {
  ::testing::internal::CaptureStderr();
  internal::WriteLogLine(LogSeverity::kWarning,
                         "/src/checkout/agent/uploader.cc", 88,
                         "span done run=r1");
  const std::string line = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(
      line,
      MatchesRegex(
          "W [0-9]{4}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]"
          "\\.[0-9]{3}Z agent/uploader\\.cc:88\\] span "
          "done run=r1\n"));
}

TEST_F(LogTest, ShortFileNamesAreKeptWhole) {
  ::testing::internal::CaptureStderr();
  internal::WriteLogLine(LogSeverity::kInfo, "main.cc", 1, "a");
  internal::WriteLogLine(LogSeverity::kError, "/main.cc", 2, "b");
  internal::WriteLogLine(LogSeverity::kInfo, "tools/main.cc", 3, "c");
  const std::string lines = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(lines, HasSubstr("Z main.cc:1] a\n"));
  EXPECT_THAT(lines, HasSubstr("Z /main.cc:2] b\n"));
  EXPECT_THAT(lines,
              ContainsRegex("^I .*\nE .*\nI .*Z tools/main.cc:3\\] c\n$"));
}

TEST_F(LogTest, PdLogFormatsItsArguments) {
  ::testing::internal::CaptureStderr();
  PD_LOG(ERROR, "events=%d worker=%s", 81234, "w3");
  const std::string line = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(line,
              MatchesRegex("E .* base/log_test\\.cc:[0-9]+\\] events=81234 "
                           "worker=w3\n"));
}

TEST_F(LogTest, VlogPrintsOnlyAtOrBelowTheVerbosity) {
  EXPECT_EQ(LogVerbosity(), 0);
  ::testing::internal::CaptureStderr();
  PD_VLOG(1, "hidden %d", 1);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), IsEmpty());
  SetLogVerbosity(2);
  EXPECT_EQ(LogVerbosity(), 2);
  ::testing::internal::CaptureStderr();
  PD_VLOG(2, "shown %d", 2);
  PD_VLOG(3, "hidden %d", 3);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              MatchesRegex("I .*\\] shown 2\n"));
}

TEST_F(LogTest, PassingCheckPrintsNothing) {
  ::testing::internal::CaptureStderr();
  PD_CHECK(1 + 1 == 2, "arithmetic");
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), IsEmpty());
}

TEST_F(LogTest, FailedCheckWritesAFatalLineAndAborts) {
  EXPECT_DEATH(PD_CHECK(1 + 1 == 3, "arithmetic is %s", "broken"),
               "F .*log_test\\.cc:[0-9]+\\] CHECK failed: 1 \\+ 1 == 3: "
               "arithmetic is broken");
}

}  // namespace
}  // namespace profdiff::base
