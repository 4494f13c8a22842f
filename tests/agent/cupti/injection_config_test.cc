// InjectionConfigFromEnvironment: defaults, every variable, and errors that
// name the variable.
#include "agent/cupti/injection_config.h"

#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::agent::cupti {
namespace {

using ::testing::HasSubstr;

EnvironmentLookup Env(std::map<std::string, std::string> values) {
  return [values = std::move(values)](
             std::string_view name) -> std::optional<std::string> {
    auto it = values.find(std::string(name));
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

TEST(InjectionConfigTest,
     DefaultsSendToTheAgentSocketAndNameTheWorkerAfterHostAndPid) {
  absl::StatusOr<InjectionConfig> config =
      InjectionConfigFromEnvironment(Env({}), "node-7", 4242);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->target, "unix:/run/profdiff/agent.sock");
  EXPECT_EQ(config->capture.mode, CaptureMode::kAlways);
  EXPECT_EQ(config->worker_name, "node-7_4242");
  EXPECT_EQ(config->run, "cupti-node-7-4242");
  EXPECT_EQ(config->rank, 0);
  EXPECT_EQ(config->world_size, 1);
  EXPECT_EQ(config->job, "0");
  EXPECT_EQ(config->max_buffered_events, 2'000'000);
  EXPECT_EQ(config->activity_buffer_bytes, size_t{4} << 20);
}

TEST(InjectionConfigTest, EveryVariableIsRead) {
  absl::StatusOr<InjectionConfig> config = InjectionConfigFromEnvironment(
      Env({{"PROFDIFF_AGENT_SOCKET", "/tmp/a.sock"},
           {"PROFDIFF_CAPTURE", "steps:10-20"},
           {"TORCHELASTIC_RUN_ID", "elastic-1"},
           {"RANK", "3"},
           {"WORLD_SIZE", "8"},
           {"PROFDIFF_BUFFER_EVENTS", "1000"},
           {"PROFDIFF_CUPTI_BUFFERS", "4"},
           {"PROFDIFF_CUPTI_BUFFER_KB", "256"},
           {"PROFDIFF_FLUSH_MS", "250"},
           {"PROFDIFF_SPAN_SECONDS", "10"},
           {"PROFDIFF_EXIT_TIMEOUT_SECONDS", "5"},
           {"PROFDIFF_TOKEN_FILE", "/etc/token"}}),
      "h", 1);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->target, "unix:/tmp/a.sock");
  EXPECT_EQ(config->capture.first, 10);
  EXPECT_EQ(config->run, "elastic-1");
  EXPECT_EQ(config->job, "elastic-1");
  EXPECT_EQ(config->rank, 3);
  EXPECT_EQ(config->world_size, 8);
  EXPECT_EQ(config->max_buffered_events, 1000);
  EXPECT_EQ(config->activity_buffers, 4u);
  EXPECT_EQ(config->activity_buffer_bytes, size_t{256} << 10);
  EXPECT_EQ(config->flush_period, absl::Milliseconds(250));
  EXPECT_EQ(config->span_period, absl::Seconds(10));
  EXPECT_EQ(config->exit_timeout, absl::Seconds(5));
  EXPECT_EQ(config->security.token_file, "/etc/token");
}

// The job `profdiff capture --job` matches: as Kineto's processes give it.
TEST(InjectionConfigTest, TheJobIsTorchElasticsRunIdElseSlurmsJobId) {
  absl::StatusOr<InjectionConfig> slurm = InjectionConfigFromEnvironment(
      Env({{"SLURM_JOB_ID", "4711"}, {"PROFDIFF_CAPTURE", "on-demand"}}), "h",
      1);
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  EXPECT_EQ(slurm->job, "4711");
  EXPECT_EQ(slurm->capture.mode, CaptureMode::kOnDemand);
  EXPECT_EQ(InjectionConfigFromEnvironment(
                Env({{"SLURM_JOB_ID", "4711"}, {"TORCHELASTIC_RUN_ID", "te"}}),
                "h", 1)
                ->job,
            "te");
}

TEST(InjectionConfigTest, RunIdTakesPrecedence) {
  absl::StatusOr<InjectionConfig> config = InjectionConfigFromEnvironment(
      Env({{"PROFDIFF_RUN_ID", "mine"}, {"TORCHELASTIC_RUN_ID", "elastic"}}),
      "h", 1);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->run, "mine");
}

// Issue 47: the H200 check sourced the quick start's env file, which exports
// PROFDIFF_AGGREGATOR for agents; the injected processes then bypassed the
// agent, and on-demand capture was refused. The rule: an explicitly given
// socket wins; PROFDIFF_INJECTION_AGGREGATOR sends directly; the quick
// start's PROFDIFF_AGGREGATOR never changes the path.
TEST(InjectionConfigTest,
     AnExplicitSocketWinsAndTheQuickStartEnvChangesNoPath) {
  struct Case {
    std::map<std::string, std::string> env;
    std::string target;
    bool noted = false;
  };
  const std::string quick_start = "127.0.0.1:50052";
  for (const Case& c : std::vector<Case>{
           {{}, "unix:/run/profdiff/agent.sock"},
           {{{"PROFDIFF_AGGREGATOR", quick_start}},
            "unix:/run/profdiff/agent.sock"},
           {{{"PROFDIFF_AGGREGATOR", quick_start},
             {"PROFDIFF_AGENT_SOCKET", "/tmp/a.sock"}},
            "unix:/tmp/a.sock"},
           {{{"PROFDIFF_INJECTION_AGGREGATOR", "10.0.0.1:50051"}},
            "10.0.0.1:50051"},
           {{{"PROFDIFF_INJECTION_AGGREGATOR", "10.0.0.1:50051"},
             {"PROFDIFF_AGGREGATOR", quick_start}},
            "10.0.0.1:50051"},
           {{{"PROFDIFF_INJECTION_AGGREGATOR", "10.0.0.1:50051"},
             {"PROFDIFF_AGENT_SOCKET", "/tmp/a.sock"}},
            "unix:/tmp/a.sock",
            true},
       }) {
    SCOPED_TRACE(testing::PrintToString(c.env));
    absl::StatusOr<InjectionConfig> config =
        InjectionConfigFromEnvironment(Env(c.env), "h", 1);
    ASSERT_TRUE(config.ok()) << config.status();
    EXPECT_EQ(config->target, c.target);
    EXPECT_EQ(!config->path_note.empty(), c.noted) << config->path_note;
  }
  // On demand with the quick start's env sourced: the agent's orders reach
  // it, not a refusal.
  absl::StatusOr<InjectionConfig> on_demand = InjectionConfigFromEnvironment(
      Env({{"PROFDIFF_CAPTURE", "on-demand"},
           {"PROFDIFF_AGGREGATOR", quick_start},
           {"PROFDIFF_AGENT_SOCKET", "/tmp/a.sock"}}),
      "h", 1);
  ASSERT_TRUE(on_demand.ok()) << on_demand.status();
  EXPECT_EQ(on_demand->target, "unix:/tmp/a.sock");
}

TEST(InjectionConfigTest, BadValuesNameTheVariableAndTheRange) {
  struct Case {
    std::map<std::string, std::string> env;
    std::string expected;
  };
  for (const Case& c : std::vector<Case>{
           {{{"RANK", "x"}}, "RANK=\"x\": expected an integer"},
           {{{"RANK", "8"}, {"WORLD_SIZE", "8"}},
            "RANK=8 is not below WORLD_SIZE=8"},
           {{{"PROFDIFF_CUPTI_BUFFERS", "0"}}, "PROFDIFF_CUPTI_BUFFERS=\"0\""},
           {{{"PROFDIFF_CUPTI_BUFFERS", "1024"},
             {"PROFDIFF_CUPTI_BUFFER_KB", "1048576"}},
            "more than 1 GiB"},
           {{{"PROFDIFF_RUN_ID", "a/b"}},
            "PROFDIFF_RUN_ID=\"a/b\": a run id is"},
           {{{"PROFDIFF_CAPTURE", "steps:9-1"}}, "PROFDIFF_CAPTURE"},
           {{{"PROFDIFF_CAPTURE", "on-demand"},
             {"PROFDIFF_INJECTION_AGGREGATOR", "10.0.0.1:50051"}},
            "PROFDIFF_CAPTURE=on-demand needs the node's profdiff-agent"},
       }) {
    absl::StatusOr<InjectionConfig> config =
        InjectionConfigFromEnvironment(Env(c.env), "h", 1);
    ASSERT_FALSE(config.ok()) << c.expected;
    EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(config.status().message(), HasSubstr(c.expected));
  }
}

}  // namespace
}  // namespace profdiff::agent::cupti
