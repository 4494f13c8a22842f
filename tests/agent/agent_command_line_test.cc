// profdiff-agent's flags: both modes, defaults, and one refusal per kind of
// mistake.
#include "agent/agent_command_line.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(AgentCommandLineTest, WatchModeWithDefaults) {
  absl::StatusOr<AgentCommandLine> line =
      ParseAgentCommandLine({"--aggregator", "agg:50051", "--logdir=/logs"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->mode, AgentMode::kWatch);
  EXPECT_EQ(line->aggregator, "agg:50051");
  EXPECT_EQ(line->logdir, "/logs");
  EXPECT_EQ(line->settle, absl::Seconds(2));
  EXPECT_EQ(line->give_up_after, absl::Seconds(60));
  EXPECT_EQ(line->window, 8);
}

TEST(AgentCommandLineTest, UploadModeTakesFilesAndTimeout) {
  absl::StatusOr<AgentCommandLine> line =
      ParseAgentCommandLine({"upload", "--aggregator", "agg:1", "--run", "r1",
                             "--timeout", "90s", "a.json", "b.json.gz"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->mode, AgentMode::kUpload);
  EXPECT_EQ(line->run, "r1");
  EXPECT_EQ(line->timeout, absl::Seconds(90));
  EXPECT_THAT(line->files, ElementsAre("a.json", "b.json.gz"));
}

TEST(AgentCommandLineTest, MissingAggregatorIsInvalidArgument) {
  const absl::Status status =
      ParseAgentCommandLine({"--logdir", "/logs"}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("--aggregator"));
}

TEST(AgentCommandLineTest, UnknownFlagIsNamed) {
  const absl::Status status =
      ParseAgentCommandLine(
          {"--aggregator", "a:1", "--logdir", "/l", "--colour", "x"})
          .status();
  EXPECT_THAT(status.message(), HasSubstr("--colour"));
}

TEST(AgentCommandLineTest, MalformedDurationIsNamed) {
  const absl::Status status =
      ParseAgentCommandLine(
          {"--aggregator", "a:1", "--logdir", "/l", "--settle", "soon"})
          .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("--settle"));
}

TEST(AgentCommandLineTest, FlagOfTheOtherModeIsRefused) {
  EXPECT_FALSE(ParseAgentCommandLine(
                   {"--aggregator", "a:1", "--logdir", "/l", "--timeout", "1s"})
                   .ok());
  EXPECT_FALSE(ParseAgentCommandLine({"upload", "--aggregator", "a:1",
                                      "--logdir", "/l", "f.json"})
                   .ok());
}

TEST(AgentCommandLineTest, InvalidRunIdIsRefused) {
  EXPECT_FALSE(ParseAgentCommandLine(
                   {"--aggregator", "a:1", "--logdir", "/l", "--run", "a b"})
                   .ok());
}

TEST(AgentCommandLineTest, UploadWithoutFilesIsRefused) {
  EXPECT_FALSE(ParseAgentCommandLine({"upload", "--aggregator", "a:1"}).ok());
}

}  // namespace
}  // namespace profdiff::agent
