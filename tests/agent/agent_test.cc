// The watch-mode Agent assembled (agent.h) against an aggregator that only
// speaks Agents.Control: it orders a capture once the agent lists a Kineto
// process, as the aggregator's CaptureCoordinator does.
#include "agent/agent.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

#include <absl/synchronization/mutex.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "profdiff/v1/agents.grpc.pb.h"
#include "rpc/server.h"
#include "tests/agent/kineto_client_process.h"
#include "tests/support/test_dir.h"

namespace profdiff::agent {
namespace {

using ::testing::HasSubstr;
using testing::KinetoClientProcess;
using ::testing::StartsWith;

constexpr absl::Duration kPatience = absl::Seconds(20);

// Orders `order` on the first Control stream whose status lists a process,
// and keeps the answer.
class OrderingAggregator final : public v1::Agents::Service {
 public:
  explicit OrderingAggregator(v1::CaptureOrder order)
      : order_(std::move(order)) {}

  grpc::Status Control(
      grpc::ServerContext* /*context*/,
      grpc::ServerReaderWriter<v1::ControlMessage, v1::AgentReport>* stream)
      override {
    v1::AgentReport report;
    bool ordered = false;
    while (stream->Read(&report)) {
      if (report.has_status() && report.status().processes_size() > 0 &&
          !ordered) {
        v1::ControlMessage message;
        *message.mutable_capture() = order_;
        ordered = stream->Write(message);
      }
      if (report.has_answer()) {
        absl::MutexLock lock(&mu_);
        answer_ = report.answer();
      }
    }
    return grpc::Status::OK;
  }

  std::optional<v1::CaptureAnswer> AwaitAnswer() {
    absl::MutexLock lock(&mu_);
    const auto answered = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return answer_.has_value();
    };
    mu_.AwaitWithTimeout(absl::Condition(&answered), kPatience);
    return answer_;
  }

 private:
  const v1::CaptureOrder order_;
  absl::Mutex mu_;
  std::optional<v1::CaptureAnswer> answer_ ABSL_GUARDED_BY(mu_);
};

// Regression for #42: with a relative --logdir the daemon handed kineto a
// relative log file, which kineto opened relative to the trainer's working
// directory, not the agent's; the agent spells the log dir absolute once.
TEST(AgentTest, ARelativeLogDirIsAbsoluteInTheConfigsKinetoGets) {
  test_support::TempDir root;
  const std::string logdir =
      std::filesystem::relative(root.Join("logs"),
                                std::filesystem::current_path())
          .string();
  ASSERT_FALSE(logdir.starts_with('/'));
  v1::CaptureOrder order;
  order.set_capture_id("rel");
  order.set_run("rel");
  order.set_steps(1);
  order.set_start_at_step(-1);
  order.set_deadline_unix_ms(absl::ToUnixMillis(absl::Now() + kPatience));
  OrderingAggregator aggregator(order);
  absl::StatusOr<rpc::RunningServer> server =
      rpc::StartServer("127.0.0.1:0", {&aggregator});
  ASSERT_TRUE(server.ok()) << server.status();
  static std::atomic<int> next{0};
  const std::string daemon = "profdiff-agent-test-" +
                             std::to_string(::getpid()) + "-" +
                             std::to_string(next++);
  AgentOptions options;
  options.aggregator = "127.0.0.1:" + std::to_string(server->port);
  options.logdir = logdir;
  options.kineto_daemon = daemon;
  options.state_dir = root.Join("state");
  options.control_status_interval = absl::Milliseconds(20);
  options.upload.agent_id = "node-a";
  absl::StatusOr<std::unique_ptr<Agent>> agent = Agent::Start(options);
  ASSERT_TRUE(agent.ok()) << agent.status();

  KinetoClientProcess rank(daemon);
  ASSERT_TRUE(rank.ok());
  ASSERT_EQ(rank.Poll(2, 7), "");
  const std::optional<v1::CaptureAnswer> answer = aggregator.AwaitAnswer();
  ASSERT_TRUE(answer.has_value());
  ASSERT_EQ(answer->triggered_pids_size(), 1) << answer->error();
  const std::string config = rank.Poll(2, 7).value_or("");
  EXPECT_THAT(config, HasSubstr("ACTIVITIES_LOG_FILE=" + root.Join("logs") +
                                "/profdiff-captures/rel/"));
  (*agent)->Stop();
  server->server->Shutdown();
}

}  // namespace
}  // namespace profdiff::agent
