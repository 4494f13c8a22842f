// The CUPTI injection libraries' side of on-demand capture (issue 26, item 4),
// on the agent's unix socket: a library connects with the Control stream the
// injection library runs (agent/control_channel.h), the agent lists its
// process, hands it capture orders through CaptureOrders and takes its
// answers; a busy library is left alone, a silent one is named, a gone one is
// forgotten. The socket is the agent's RelaySocketServer, so a library is
// known by the kernel's word on its connection: these libraries run in this
// test process and speak for its pid.
#include "agent/injected_processes.h"

#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include <absl/synchronization/mutex.h>
#include <absl/synchronization/notification.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/capture_orders.h"
#include "agent/control_channel.h"
#include "agent/relay_socket_server.h"
#include "rpc/channel.h"
#include "tests/support/test_dir.h"
#include "tests/support/wait_until.h"

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

// An injection library as the agent sees it: a process saying it is `pid`
// (this test process unless told a lie) of `job` on a Control stream, armed
// by an order until Finish(), busy meanwhile (what CuptiSession::OnOrder
// answers, without CUPTI). With `hold` set, an order is not answered until
// Release(). `also_triggered` are pids its answers claim besides its own.
class TestLibrary {
 public:
  TestLibrary(const std::string& socket, std::string job, bool hold = false,
              int32_t pid = ::getpid(),
              std::vector<int32_t> also_triggered = {})
      : pid_(pid),
        job_(std::move(job)),
        hold_(hold),
        also_triggered_(std::move(also_triggered)) {
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
      for (const int32_t pid : also_triggered_) answer.add_triggered_pids(pid);
    }
    return answer;
  }

  const int32_t pid_;
  const std::string job_;
  const bool hold_;
  const std::vector<int32_t> also_triggered_;
  absl::Notification released_;
  absl::Mutex mu_;
  std::string capture_id_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::CaptureOrder> orders_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<ControlChannel> channel_;  // last: stopped first
};

class InjectedProcessesTest : public ::testing::Test {
 protected:
  void SetUp() override { Serve(absl::Seconds(5)); }

  void Serve(absl::Duration answer_timeout, int max_libraries = 1024) {
    if (injected_ != nullptr) injected_->Stop();
    server_.reset();
    auto server = RelaySocketServer::Bind({.path = socket_});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    RelaySocketServer* socket = server_.get();
    injected_ = std::make_unique<InjectedProcesses>(
        [socket](const grpc::ServerContextBase& context) {
          return socket->PeerOf(context);
        },
        answer_timeout, max_libraries);
    ASSERT_TRUE(server_->Serve({injected_.get()}).ok());
    auto armed = ArmedCaptures::Open(state_.path(), absl::Now());
    ASSERT_TRUE(armed.ok()) << armed.status();
    armed_ = *std::move(armed);
    orders_ =
        std::make_unique<CaptureOrders>(nullptr, injected_.get(), armed_.get());
  }

  void TearDown() override {
    if (injected_ != nullptr) injected_->Stop();
    server_.reset();
  }

  // The status a Control stream that opens with `report` ends with.
  grpc::Status RefusalOf(const v1::AgentReport& report) {
    std::unique_ptr<v1::Agents::Stub> stub = v1::Agents::NewStub(
        rpc::MakeChannel("unix:" + socket_, rpc::ChannelSecurity()));
    grpc::ClientContext context;
    auto stream = stub->Control(&context);
    if (!stream->Write(report)) return stream->Finish();
    stream->WritesDone();
    return stream->Finish();
  }

  // Waits until the agent lists the processes `pred` accepts.
  template <typename Pred>
  bool AwaitProcesses(Pred pred) {
    return test_support::WaitUntil([&] { return pred(orders_->Processes()); },
                                   kPatience);
  }
  bool AwaitCapturing(int32_t pid, const std::string& capture_id) {
    return AwaitProcesses([&](const std::vector<v1::LocalProcess>& all) {
      for (const v1::LocalProcess& p : all) {
        if (p.pid() == pid) return p.capture_id() == capture_id;
      }
      return false;
    });
  }

  test_support::TempDir dir_;
  test_support::TempDir state_;
  const std::string socket_ = dir_.Join("agent.sock");
  std::unique_ptr<RelaySocketServer> server_;
  std::unique_ptr<InjectedProcesses> injected_;
  std::unique_ptr<ArmedCaptures> armed_;
  std::unique_ptr<CaptureOrders> orders_;
  const int32_t pid_ = ::getpid();
};

TEST_F(InjectedProcessesTest, AnOrderReachesTheLibraryAndItsAnswerComesBack) {
  TestLibrary library(socket_, "job-7");
  ASSERT_TRUE(AwaitCapturing(pid_, ""));
  const std::vector<v1::LocalProcess> listed = orders_->Processes();
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].job(), "job-7");
  EXPECT_EQ(listed[0].source(), "cupti");
  EXPECT_EQ(listed[0].uid(), ::getuid());

  const v1::CaptureAnswer first = orders_->Handle(Order("c1", "job-7"));
  EXPECT_THAT(first.triggered_pids(), ElementsAre(pid_));
  EXPECT_EQ(first.error(), "");
  ASSERT_EQ(library.orders().size(), 1u);
  EXPECT_EQ(library.orders()[0].run(), "c1-run");
  EXPECT_EQ(library.orders()[0].steps(), 3);

  // While it captures (its status says so) another capture leaves it alone:
  // busy, and the order never reaches it.
  ASSERT_TRUE(AwaitCapturing(pid_, "c1"));
  const v1::CaptureAnswer second = orders_->Handle(Order("c2", "job-7"));
  EXPECT_THAT(second.busy_pids(), ElementsAre(pid_));
  EXPECT_THAT(second.triggered_pids(), IsEmpty());
  EXPECT_EQ(library.orders().size(), 1u);

  // Its window over, the next capture takes it again.
  library.Finish();
  ASSERT_TRUE(AwaitCapturing(pid_, ""));
  EXPECT_THAT(orders_->Handle(Order("c3", "")).triggered_pids(),
              ElementsAre(pid_));
  EXPECT_EQ(library.orders().size(), 2u);
}

TEST_F(InjectedProcessesTest, OnlyTheJobsProcessesAreOrdered) {
  TestLibrary mine(socket_, "job-7");
  ASSERT_TRUE(AwaitCapturing(pid_, ""));
  EXPECT_THAT(orders_->Handle(Order("c1", "job-8")).triggered_pids(),
              IsEmpty());
  EXPECT_THAT(mine.orders(), IsEmpty());
  EXPECT_THAT(orders_->Handle(Order("c2", "job-7")).triggered_pids(),
              ElementsAre(pid_));
  EXPECT_EQ(mine.orders().size(), 1u);
}

TEST_F(InjectedProcessesTest, ALibraryThatDoesNotAnswerInTimeIsNamed) {
  Serve(absl::Milliseconds(200));
  TestLibrary silent(socket_, "job-7", /*hold=*/true);
  ASSERT_TRUE(AwaitCapturing(pid_, ""));
  const v1::CaptureAnswer answer = orders_->Handle(Order("c1", "job-7"));
  EXPECT_THAT(answer.triggered_pids(), IsEmpty());
  EXPECT_THAT(answer.error(), HasSubstr("pid " + std::to_string(pid_) +
                                        ": no answer within 200ms"));
}

TEST_F(InjectedProcessesTest, ALibraryThatGoesAwayIsForgotten) {
  TestLibrary library(socket_, "job-7");
  ASSERT_TRUE(AwaitCapturing(pid_, ""));
  library.Disconnect();
  EXPECT_TRUE(AwaitProcesses(
      [](const std::vector<v1::LocalProcess>& all) { return all.empty(); }));
  EXPECT_THAT(orders_->Handle(Order("c1", "job-7")).triggered_pids(),
              IsEmpty());
}

TEST_F(InjectedProcessesTest, AFirstReportThatIsNotOneProcessIsRefused) {
  v1::AgentReport report;
  report.mutable_status()->set_agent_id("no-process");
  const grpc::Status status = RefusalOf(report);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("got 0 processes"));
  EXPECT_THAT(orders_->Processes(), IsEmpty());
}

// Regression for #42: a library speaks only for the process on its
// connection.
TEST_F(InjectedProcessesTest, ALibrarySpeakingForAnotherPidIsRefused) {
  v1::AgentReport report;
  report.mutable_status()->set_agent_id("liar");
  v1::LocalProcess& process = *report.mutable_status()->add_processes();
  process.set_pid(::getppid());
  process.set_job("job-7");
  const grpc::Status status = RefusalOf(report);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(status.error_message(), HasSubstr("a process speaks only for "
                                                "itself"));
  EXPECT_THAT(orders_->Processes(), IsEmpty());
}

TEST_F(InjectedProcessesTest, ALibraryWhoseJobIsNotAnIdIsRefused) {
  v1::AgentReport report;
  v1::LocalProcess& process = *report.mutable_status()->add_processes();
  process.set_pid(pid_);
  process.set_job(std::string(200'000, 'j'));
  const grpc::Status status = RefusalOf(report);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("the limit is 128"));
}

// Regression for #42: a fake library claiming to have triggered 1,000 pids
// counts as one process: its own.
TEST_F(InjectedProcessesTest, ALibrarysAnswerCountsOnlyItsOwnPid) {
  std::vector<int32_t> claimed;
  for (int32_t pid = 100000; pid < 101000; ++pid) claimed.push_back(pid);
  TestLibrary boaster(socket_, "job-7", /*hold=*/false, pid_, claimed);
  ASSERT_TRUE(AwaitCapturing(pid_, ""));
  const v1::CaptureAnswer answer = orders_->Handle(Order("c1", "job-7"));
  EXPECT_THAT(answer.triggered_pids(), ElementsAre(pid_));
}

TEST_F(InjectedProcessesTest, LibrariesPastTheLimitAreRefused) {
  Serve(absl::Seconds(5), /*max_libraries=*/1);
  TestLibrary first(socket_, "job-7");
  ASSERT_TRUE(AwaitCapturing(pid_, ""));
  v1::AgentReport report;
  report.mutable_status()->add_processes()->set_pid(pid_);
  const grpc::Status status = RefusalOf(report);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("1 CUPTI libraries"));
}

TEST_F(InjectedProcessesTest, ACancelReachesTheLibraryCapturingForIt) {
  std::vector<v1::CaptureCancel> cancels;
  absl::Mutex mu;
  ControlChannel library(
      ControlChannelOptions{.aggregator = "unix:" + socket_,
                            .status_interval = absl::Milliseconds(10)},
      [&] {
        v1::AgentStatus status;
        v1::LocalProcess& process = *status.add_processes();
        process.set_pid(pid_);
        process.set_job("job-7");
        process.set_capture_id("c1");
        return status;
      },
      [](const v1::CaptureOrder& order) {
        v1::CaptureAnswer answer;
        answer.set_capture_id(order.capture_id());
        return answer;
      },
      [&](const v1::CaptureCancel& cancel) {
        absl::MutexLock lock(&mu);
        cancels.push_back(cancel);
      });
  ASSERT_TRUE(AwaitCapturing(pid_, "c1"));
  v1::CaptureCancel other;
  other.set_capture_id("c2");
  EXPECT_THAT(injected_->Cancel(other), IsEmpty());
  v1::CaptureCancel cancel;
  cancel.set_capture_id("c1");
  EXPECT_THAT(injected_->Cancel(cancel), ElementsAre(pid_));
  absl::MutexLock lock(&mu);
  const auto heard = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return !cancels.empty();
  };
  ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(&heard), kPatience));
  EXPECT_EQ(cancels[0].capture_id(), "c1");
}

TEST_F(InjectedProcessesTest, StopEndsTheLibrariesStreams) {
  TestLibrary library(socket_, "job-7");
  ASSERT_TRUE(AwaitCapturing(pid_, ""));
  injected_->Stop();
  EXPECT_TRUE(AwaitProcesses(
      [](const std::vector<v1::LocalProcess>& all) { return all.empty(); }));
  // A server that is stopping takes no new stream either: the server's
  // shutdown does not wait for streams that never end.
  server_->Shutdown(absl::Now() + kPatience);
  server_.reset();
}

}  // namespace
}  // namespace profdiff::agent
