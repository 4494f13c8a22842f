// The CUPTI injection libraries' side of on-demand capture (issue 26, item 4),
// on the agent's unix socket: a library connects with the Control stream the
// injection library runs (agent/control_channel.h), the agent lists its
// process, hands it capture orders through CaptureOrders and takes its
// answers; a busy library is left alone, a silent one is named, a gone one is
// forgotten.
#include "agent/injected_processes.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <absl/synchronization/mutex.h>
#include <absl/synchronization/notification.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/capture_orders.h"
#include "agent/control_channel.h"
#include "rpc/channel.h"
#include "rpc/server.h"
#include "tests/agent/temp_dir.h"

namespace profdiff::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr absl::Duration kPatience = absl::Seconds(10);

v1::CaptureOrder Order(const std::string& id, const std::string& job) {
  v1::CaptureOrder order;
  order.set_capture_id(id);
  order.set_run(id + "-run");
  order.set_job(job);
  order.set_steps(3);
  order.set_start_at_step(-1);
  order.set_deadline_unix_ms(
      absl::ToUnixMillis(absl::Now() + absl::Minutes(1)));
  return order;
}

// An injection library as the agent sees it: process `pid` of `job` on a
// Control stream, armed by an order until Finish(), busy meanwhile (what
// CuptiSession::OnOrder answers, without CUPTI). With `hold` set, an order
// is not answered until Release().
class TestLibrary {
 public:
  TestLibrary(const std::string& socket, int32_t pid, std::string job,
              bool hold = false)
      : pid_(pid), job_(std::move(job)), hold_(hold) {
    channel_ = std::make_unique<ControlChannel>(
        ControlChannelOptions{.aggregator = "unix:" + socket,
                              .status_interval = absl::Milliseconds(10)},
        [this] { return Status(); },
        [this](const v1::CaptureOrder& order) { return OnOrder(order); });
  }
  ~TestLibrary() {
    Release();
    channel_->Stop();
  }

  void Finish() {
    absl::MutexLock lock(&mu_);
    capture_id_.clear();
  }
  void Release() {
    if (!released_.HasBeenNotified()) released_.Notify();
  }
  void Disconnect() { channel_->Stop(); }
  std::vector<v1::CaptureOrder> orders() {
    absl::MutexLock lock(&mu_);
    return orders_;
  }

 private:
  v1::AgentStatus Status() {
    v1::AgentStatus status;
    status.set_agent_id("cupti-test_" + std::to_string(pid_));
    v1::LocalProcess& process = *status.add_processes();
    process.set_pid(pid_);
    process.set_job(job_);
    process.set_gpu(-1);
    process.set_source("cupti");
    absl::MutexLock lock(&mu_);
    process.set_capture_id(capture_id_);
    return status;
  }

  v1::CaptureAnswer OnOrder(const v1::CaptureOrder& order) {
    if (hold_) released_.WaitForNotification();
    v1::CaptureAnswer answer;
    answer.set_capture_id(order.capture_id());
    absl::MutexLock lock(&mu_);
    orders_.push_back(order);
    if (!capture_id_.empty()) {
      answer.add_busy_pids(pid_);
    } else {
      capture_id_ = order.capture_id();
      answer.add_triggered_pids(pid_);
    }
    return answer;
  }

  const int32_t pid_;
  const std::string job_;
  const bool hold_;
  absl::Notification released_;
  absl::Mutex mu_;
  std::string capture_id_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::CaptureOrder> orders_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<ControlChannel> channel_;  // last: stopped first
};

class InjectedProcessesTest : public ::testing::Test {
 protected:
  void SetUp() override { Serve(absl::Seconds(5)); }

  void Serve(absl::Duration answer_timeout) {
    server_.server.reset();
    injected_ = std::make_unique<InjectedProcesses>(answer_timeout);
    absl::StatusOr<rpc::RunningServer> server =
        rpc::StartServer("unix:" + socket_, {injected_.get()});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    orders_ = std::make_unique<CaptureOrders>(nullptr, injected_.get());
  }

  void TearDown() override {
    if (injected_ != nullptr) injected_->Stop();
    if (server_.server != nullptr) server_.server->Shutdown();
  }

  // Waits until the agent lists the processes `pred` accepts.
  template <typename Pred>
  bool AwaitProcesses(Pred pred) {
    const absl::Time give_up = absl::Now() + kPatience;
    while (absl::Now() < give_up) {
      if (pred(orders_->Processes())) return true;
      std::this_thread::yield();
    }
    return false;
  }
  bool AwaitCapturing(int32_t pid, const std::string& capture_id) {
    return AwaitProcesses([&](const std::vector<v1::LocalProcess>& all) {
      for (const v1::LocalProcess& p : all) {
        if (p.pid() == pid) return p.capture_id() == capture_id;
      }
      return false;
    });
  }

  TempDir dir_;
  const std::string socket_ = dir_.Join("agent.sock");
  std::unique_ptr<InjectedProcesses> injected_;
  rpc::RunningServer server_;
  std::unique_ptr<CaptureOrders> orders_;
};

TEST_F(InjectedProcessesTest, AnOrderReachesTheLibraryAndItsAnswerComesBack) {
  TestLibrary library(socket_, 9001, "job-7");
  ASSERT_TRUE(AwaitCapturing(9001, ""));
  const std::vector<v1::LocalProcess> listed = orders_->Processes();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].job(), "job-7");
  EXPECT_EQ(listed[0].source(), "cupti");

  const v1::CaptureAnswer first = orders_->Handle(Order("c1", "job-7"));
  EXPECT_THAT(first.triggered_pids(), ElementsAre(9001));
  EXPECT_EQ(first.error(), "");
  ASSERT_EQ(library.orders().size(), 1u);
  EXPECT_EQ(library.orders()[0].run(), "c1-run");
  EXPECT_EQ(library.orders()[0].steps(), 3);

  // While it captures (its status says so) another capture leaves it alone:
  // busy, and the order never reaches it.
  ASSERT_TRUE(AwaitCapturing(9001, "c1"));
  const v1::CaptureAnswer second = orders_->Handle(Order("c2", "job-7"));
  EXPECT_THAT(second.busy_pids(), ElementsAre(9001));
  EXPECT_THAT(second.triggered_pids(), IsEmpty());
  EXPECT_EQ(library.orders().size(), 1u);

  // Its window over, the next capture takes it again.
  library.Finish();
  ASSERT_TRUE(AwaitCapturing(9001, ""));
  EXPECT_THAT(orders_->Handle(Order("c3", "")).triggered_pids(),
              ElementsAre(9001));
  EXPECT_EQ(library.orders().size(), 2u);
}

TEST_F(InjectedProcessesTest, OnlyTheJobsProcessesAreOrdered) {
  TestLibrary mine(socket_, 9001, "job-7");
  TestLibrary other(socket_, 9002, "job-8");
  ASSERT_TRUE(AwaitProcesses([](const std::vector<v1::LocalProcess>& all) {
    return all.size() == 2;
  }));
  const v1::CaptureAnswer answer = orders_->Handle(Order("c1", "job-8"));
  EXPECT_THAT(answer.triggered_pids(), ElementsAre(9002));
  EXPECT_THAT(mine.orders(), IsEmpty());
  EXPECT_EQ(other.orders().size(), 1u);
}

TEST_F(InjectedProcessesTest, ALibraryThatDoesNotAnswerInTimeIsNamed) {
  Serve(absl::Milliseconds(200));
  TestLibrary silent(socket_, 9001, "job-7", /*hold=*/true);
  ASSERT_TRUE(AwaitCapturing(9001, ""));
  const v1::CaptureAnswer answer = orders_->Handle(Order("c1", "job-7"));
  EXPECT_THAT(answer.triggered_pids(), IsEmpty());
  EXPECT_THAT(answer.error(), HasSubstr("pid 9001: no answer within 200ms"));
}

TEST_F(InjectedProcessesTest, ALibraryThatGoesAwayIsForgotten) {
  TestLibrary library(socket_, 9001, "job-7");
  ASSERT_TRUE(AwaitCapturing(9001, ""));
  library.Disconnect();
  EXPECT_TRUE(AwaitProcesses(
      [](const std::vector<v1::LocalProcess>& all) { return all.empty(); }));
  EXPECT_THAT(orders_->Handle(Order("c1", "job-7")).triggered_pids(),
              IsEmpty());
}

TEST_F(InjectedProcessesTest, AFirstReportThatIsNotOneProcessIsRefused) {
  std::unique_ptr<v1::Agents::Stub> stub = v1::Agents::NewStub(
      rpc::MakeChannel("unix:" + socket_, rpc::ChannelSecurity()));
  grpc::ClientContext context;
  auto stream = stub->Control(&context);
  v1::AgentReport report;
  report.mutable_status()->set_agent_id("no-process");
  ASSERT_TRUE(stream->Write(report));
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("got 0 processes"));
  EXPECT_THAT(orders_->Processes(), IsEmpty());
}

TEST_F(InjectedProcessesTest, StopEndsTheLibrariesStreams) {
  TestLibrary library(socket_, 9001, "job-7");
  ASSERT_TRUE(AwaitCapturing(9001, ""));
  injected_->Stop();
  EXPECT_TRUE(AwaitProcesses(
      [](const std::vector<v1::LocalProcess>& all) { return all.empty(); }));
  // A server that is stopping takes no new stream either: the server's
  // shutdown does not wait for streams that never end.
  server_.server->Shutdown(absl::ToChronoTime(absl::Now() + kPatience));
  server_.server.reset();
}

}  // namespace
}  // namespace profdiff::agent
