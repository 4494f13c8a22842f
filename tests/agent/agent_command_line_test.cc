// profdiff-agent's flags: both modes, defaults, and one refusal per kind of
// mistake.
#include "agent/agent_command_line.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/backoff.h"
#include "base/hostname.h"

namespace profdiff::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(AgentCommandLineTest, WatchModeWithDefaults) {
  absl::StatusOr<AgentCommandLine> line =
      ParseAgentCommandLine({"--aggregator", "agg:50051", "--logdir=/logs"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->mode, AgentMode::kWatch);
  EXPECT_EQ(line->options.aggregator, "agg:50051");
  EXPECT_EQ(line->options.logdir, "/logs");
  EXPECT_EQ(line->options.watch.settle, absl::Seconds(2));
  EXPECT_EQ(line->options.watch.give_up_after, absl::Seconds(60));
  EXPECT_EQ(line->options.upload.window_chunks, 8);
}

TEST(AgentCommandLineTest, DefaultsAreTheOptionsStructsOwn) {
  absl::StatusOr<AgentCommandLine> line =
      ParseAgentCommandLine({"--aggregator", "a:1", "--logdir", "/l"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->options.upload.window_chunks,
            SpanUploaderOptions().window_chunks);
  EXPECT_EQ(line->options.upload.stream_timeout,
            SpanUploaderOptions().stream_timeout);
  EXPECT_EQ(line->options.upload.backoff.initial_delay,
            BackoffOptions().initial_delay);
  EXPECT_EQ(line->options.upload.backoff.max_delay, BackoffOptions().max_delay);
  EXPECT_EQ(line->options.files.chunk_events, kDefaultChunkEvents);
  EXPECT_EQ(line->options.watch.rescan_interval,
            LogDirWatcherOptions().rescan_interval);
  EXPECT_EQ(line->options.upload_timeout, AgentOptions().upload_timeout);
}

TEST(AgentCommandLineTest, UploadModeTakesFilesAndTimeout) {
  absl::StatusOr<AgentCommandLine> line =
      ParseAgentCommandLine({"upload", "--aggregator", "agg:1", "--run", "r1",
                             "--timeout", "90s", "a.json", "b.json.gz"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->mode, AgentMode::kUpload);
  EXPECT_EQ(line->options.files.identity.run_flag, "r1");
  EXPECT_EQ(line->options.upload_timeout, absl::Seconds(90));
  EXPECT_THAT(line->files, ElementsAre("a.json", "b.json.gz"));
}

TEST(AgentCommandLineTest, UnderscoreSpellingsWork) {
  absl::StatusOr<AgentCommandLine> line = ParseAgentCommandLine(
      {"--aggregator=a:1", "--listen_unix", "/run/agent.sock", "--state_dir",
       "/s", "--chunk_events=5", "--backoff_initial=50ms"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->options.listen_unix, "/run/agent.sock");
  EXPECT_EQ(line->options.state_dir, "/s");
  EXPECT_EQ(line->options.files.chunk_events, 5u);
  EXPECT_EQ(line->options.upload.backoff.initial_delay, absl::Milliseconds(50));
}

TEST(AgentCommandLineTest, SecurityFlagsFillTheFiles) {
  absl::StatusOr<AgentCommandLine> line = ParseAgentCommandLine(
      {"--aggregator", "a:1", "--logdir", "/l", "--tls", "--tls-ca-file",
       "ca.pem", "--tls_cert_file=c.pem", "--tls-key-file", "k.pem",
       "--auth-token-file", "t"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_TRUE(line->security.tls);
  EXPECT_EQ(line->security.tls_ca_file, "ca.pem");
  EXPECT_EQ(line->security.tls_cert_file, "c.pem");
  EXPECT_EQ(line->security.tls_key_file, "k.pem");
  EXPECT_EQ(line->security.token_file, "t");
}

TEST(AgentCommandLineTest, HelpInEitherMode) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--help"},
        std::vector<std::string>{"upload", "-h"}}) {
    absl::StatusOr<AgentCommandLine> line = ParseAgentCommandLine(args);
    ASSERT_TRUE(line.ok()) << line.status();
    EXPECT_TRUE(line->help);
  }
}

TEST(AgentCommandLineTest, UsageListsEveryFlagWithItsDefault) {
  const std::string usage = AgentUsage();
  for (const char* flag : {"--aggregator HOST:PORT",
                           "--logdir DIR",
                           "--listen-unix PATH",
                           "--run ID",
                           "--state-dir DIR",
                           "--agent-id ID",
                           "--tls ",
                           "--tls-ca-file FILE",
                           "--tls-cert-file FILE",
                           "--tls-key-file FILE",
                           "--auth-token-file FILE",
                           "--settle D",
                           "--give-up-after D",
                           "--rescan-interval D",
                           "--timeout D",
                           "--parallel N",
                           "--rpc-timeout D",
                           "--backoff-initial D",
                           "--backoff-max D",
                           "--window N",
                           "--chunk-events N",
                           "--parallel-bytes BYTES",
                           "--v N"}) {
    EXPECT_THAT(usage, HasSubstr(std::string("\n  ") + flag)) << flag;
  }
  EXPECT_THAT(usage, HasSubstr("unacknowledged chunks in flight (default: 8)"));
  EXPECT_THAT(usage, HasSubstr("(1: one after another) (default: 16)"));
  EXPECT_THAT(usage, HasSubstr("0: no bound) (default: 268435456)"));
  EXPECT_THAT(usage, HasSubstr("(default: 100ms)"));
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

TEST(AgentCommandLineTest, WindowOutOfRangeIsRefused) {
  const absl::Status status =
      ParseAgentCommandLine(
          {"--aggregator", "a:1", "--logdir", "/l", "--window", "0"})
          .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("--window=\"0\""));
  EXPECT_THAT(status.message(), HasSubstr("[1, 1024]"));
}

TEST(AgentCommandLineTest, ParallelDefaultsToSixteenAndTakesAValue) {
  absl::StatusOr<AgentCommandLine> line =
      ParseAgentCommandLine({"upload", "--aggregator", "a:1", "f.json"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->options.upload_parallel, 16);
  EXPECT_EQ(line->options.upload_parallel_bytes, uint64_t{256} << 20);
  EXPECT_EQ(line->options.upload_parallel, AgentOptions().upload_parallel);
  for (const std::string value : {"1", "3", "64"}) {
    line = ParseAgentCommandLine(
        {"upload", "--aggregator", "a:1", "--parallel", value, "f.json"});
    ASSERT_TRUE(line.ok()) << line.status();
    EXPECT_EQ(line->options.upload_parallel, std::stoi(value));
  }
  line = ParseAgentCommandLine(
      {"upload", "--aggregator", "a:1", "--parallel=8", "f.json"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->options.upload_parallel, 8);
  line = ParseAgentCommandLine(
      {"upload", "--aggregator", "a:1", "--parallel-bytes", "0", "f.json"});
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->options.upload_parallel_bytes, 0u);
  EXPECT_THAT(ParseAgentCommandLine({"upload", "--aggregator", "a:1",
                                     "--parallel-bytes", "-1", "f.json"})
                  .status()
                  .message(),
              HasSubstr("--parallel-bytes"));
  EXPECT_THAT(ParseAgentCommandLine({"--aggregator", "a:1", "--logdir", "/l",
                                     "--parallel-bytes", "1"})
                  .status()
                  .message(),
              HasSubstr("--parallel-bytes applies only to 'upload'"));
}

TEST(AgentCommandLineTest, ParallelOutOfRangeOrNotANumberIsRefused) {
  for (const std::string value :
       {"0", "-1", "65", "1000000", "four", "2.5", "", "4x"}) {
    const absl::Status status =
        ParseAgentCommandLine(
            {"upload", "--aggregator", "a:1", "--parallel", value, "f.json"})
            .status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << value;
    EXPECT_THAT(status.message(), HasSubstr("--parallel=\"" + value + "\""))
        << value;
    EXPECT_THAT(status.message(), HasSubstr("expected an integer in [1, 64]"))
        << value;
  }
  EXPECT_THAT(
      ParseAgentCommandLine({"upload", "--aggregator", "a:1", "--parallel"})
          .status()
          .message(),
      HasSubstr("--parallel"));
}

TEST(AgentCommandLineTest, FlagOfTheOtherModeIsRefused) {
  EXPECT_THAT(ParseAgentCommandLine(
                  {"--aggregator", "a:1", "--logdir", "/l", "--timeout", "1s"})
                  .status()
                  .message(),
              HasSubstr("--timeout applies only to 'upload'"));
  EXPECT_THAT(ParseAgentCommandLine(
                  {"--aggregator", "a:1", "--logdir", "/l", "--parallel", "2"})
                  .status()
                  .message(),
              HasSubstr("--parallel applies only to 'upload'"));
  EXPECT_THAT(ParseAgentCommandLine(
                  {"upload", "--aggregator", "a:1", "--logdir", "/l", "f.json"})
                  .status()
                  .message(),
              HasSubstr("--logdir applies only to the watch mode"));
}

TEST(AgentCommandLineTest, FileInWatchModeIsRefused) {
  const absl::Status status =
      ParseAgentCommandLine({"--aggregator", "a:1", "--logdir", "/l", "f.json"})
          .status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("\"f.json\""));
}

TEST(AgentCommandLineTest, InvalidRunIdIsRefused) {
  EXPECT_FALSE(ParseAgentCommandLine(
                   {"--aggregator", "a:1", "--logdir", "/l", "--run", "a b"})
                   .ok());
}

TEST(AgentCommandLineTest, UploadWithoutFilesIsRefused) {
  EXPECT_FALSE(ParseAgentCommandLine({"upload", "--aggregator", "a:1"}).ok());
}

TEST(AgentCommandLineTest, BackoffMaxBelowInitialIsRefused) {
  EXPECT_THAT(
      ParseAgentCommandLine({"--aggregator", "a:1", "--logdir", "/l",
                             "--backoff-initial", "2s", "--backoff-max", "1s"})
          .status()
          .message(),
      HasSubstr("--backoff-max"));
}

TEST(AgentCommandLineTest, ResolvedOptionsKeepTheFlagsAndFillTheRest) {
  absl::StatusOr<AgentCommandLine> line = ParseAgentCommandLine(
      {"--aggregator", "a:1", "--logdir", "/l", "--state-dir", "/s", "--run",
       "r7", "--window", "3"});
  ASSERT_TRUE(line.ok()) << line.status();
  absl::StatusOr<AgentOptions> options = ResolveAgentOptions(*line);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->state_dir, "/s");
  EXPECT_EQ(options->files.identity.run_flag, "r7");
  EXPECT_EQ(options->upload.window_chunks, 3);
  EXPECT_EQ(options->files.hostname, base::LocalHostname());
  EXPECT_EQ(options->upload.agent_id, base::LocalHostname());
  EXPECT_FALSE(options->upload.security.tls());
}

TEST(AgentCommandLineTest, UnreadableCredentialFileIsInvalidArgument) {
  absl::StatusOr<AgentCommandLine> line = ParseAgentCommandLine(
      {"--aggregator", "a:1", "--logdir", "/l", "--state-dir", "/s",
       "--tls-ca-file", "/nonexistent/ca.pem"});
  ASSERT_TRUE(line.ok()) << line.status();
  const absl::Status status = ResolveAgentOptions(*line).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("--tls-ca-file"));
}

}  // namespace
}  // namespace profdiff::agent
