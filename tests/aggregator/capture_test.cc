// On-demand captures through a real aggregator: agents on Control streams
// (a test agent that answers as told), StartCapture / GetCapture / ListAgents,
// and the capture's run uploaded through the Collector.
#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <absl/synchronization/mutex.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "profdiff/v1/agents.grpc.pb.h"
#include "tests/aggregator/store_fixture.h"
#include "tests/aggregator/upload_test_client.h"
#include "tests/support/wait_until.h"

namespace profdiff::aggregator::store_test {
namespace {

using test_support::WaitUntil;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

v1::LocalProcess Process(int32_t pid, const std::string& job,
                         int64_t step = -1) {
  v1::LocalProcess process;
  process.set_pid(pid);
  process.set_job(job);
  process.set_gpu(-1);
  process.set_source("kineto");
  if (step >= 0) process.set_step(step);
  return process;
}

// An agent on one Control stream: it says it has `processes` and answers
// every order with `answer(order)`, keeping the orders and cancels it got.
class TestAgent {
 public:
  using Answer = std::function<v1::CaptureAnswer(const v1::CaptureOrder&)>;

  TestAgent(const std::shared_ptr<grpc::Channel>& channel, std::string id,
            std::vector<v1::LocalProcess> processes, Answer answer)
      : stub_(v1::Agents::NewStub(channel)), answer_(std::move(answer)) {
    stream_ = stub_->Control(&context_);
    v1::AgentReport report;
    v1::AgentStatus& status = *report.mutable_status();
    status.set_agent_id(std::move(id));
    status.set_node("node");
    status.set_kineto_daemon(true);
    for (v1::LocalProcess& process : processes) {
      *status.add_processes() = std::move(process);
    }
    EXPECT_TRUE(stream_->Write(report));
    reader_ = std::thread([this] {
      v1::ControlMessage message;
      while (stream_->Read(&message)) {
        if (message.has_cancel()) {
          absl::MutexLock lock(&mu_);
          cancels_.push_back(message.cancel().capture_id());
          continue;
        }
        {
          absl::MutexLock lock(&mu_);
          orders_.push_back(message.capture());
        }
        v1::AgentReport answer;
        *answer.mutable_answer() = answer_(message.capture());
        if (!stream_->Write(answer)) break;
      }
    });
  }

  ~TestAgent() {
    context_.TryCancel();
    reader_.join();
    stream_->Finish().IgnoreError();
  }

  // Waits (up to 10 s) for the n-th order.
  bool AwaitOrders(size_t n) {
    absl::MutexLock lock(&mu_);
    wanted_ = n;
    return mu_.AwaitWithTimeout(absl::Condition(this, &TestAgent::HasWanted),
                                absl::Seconds(10));
  }

  std::vector<v1::CaptureOrder> orders() {
    absl::MutexLock lock(&mu_);
    return orders_;
  }

  // Waits (up to 10 s) for a cancel of `capture_id`.
  bool AwaitCancel(const std::string& capture_id) {
    absl::MutexLock lock(&mu_);
    const auto cancelled = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return std::find(cancels_.begin(), cancels_.end(), capture_id) !=
             cancels_.end();
    };
    return mu_.AwaitWithTimeout(absl::Condition(&cancelled), absl::Seconds(10));
  }

 private:
  bool HasWanted() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return orders_.size() >= wanted_;
  }

  std::unique_ptr<v1::Agents::Stub> stub_;
  Answer answer_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::AgentReport, v1::ControlMessage>>
      stream_;
  absl::Mutex mu_;
  std::vector<v1::CaptureOrder> orders_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> cancels_ ABSL_GUARDED_BY(mu_);
  size_t wanted_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread reader_;
};

// Answers every order by triggering all of `pids`.
TestAgent::Answer Trigger(const std::vector<int32_t>& pids) {
  return [pids](const v1::CaptureOrder& order) {
    v1::CaptureAnswer answer;
    answer.set_capture_id(order.capture_id());
    for (int32_t pid : pids) answer.add_triggered_pids(pid);
    return answer;
  };
}

class CaptureTest : public StoreFixture,
                    public ::testing::WithParamInterface<std::string> {
 protected:
  CaptureTest() : StoreFixture(GetParam()) {
    options_.capture.poll_interval = absl::Milliseconds(50);
  }

  void SetUp() override {
    StoreFixture::SetUp();
    if (IsSkipped()) return;
    agents_ = v1::Agents::NewStub(channel_);
  }

  grpc::Status ListAgents(v1::ListAgentsResponse& response) {
    grpc::ClientContext context;
    rpc::SetTimeout(context, absl::Seconds(30));
    return agents_->ListAgents(&context, {}, &response);
  }

  // Waits (up to 10 s) until ListAgents lists `n` agents.
  void AwaitAgents(int n) {
    v1::ListAgentsResponse response;
    grpc::Status status;
    const bool listed = WaitUntil(
        [&] {
          status = ListAgents(response);
          return !status.ok() || response.agents_size() >= n;
        },
        absl::Seconds(10));
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_TRUE(listed) << "only " << response.agents_size() << " of " << n
                        << " agents listed";
  }

  grpc::Status Start(const v1::StartCaptureRequest& request,
                     v1::Capture& capture) {
    grpc::ClientContext context;
    rpc::SetTimeout(context, absl::Seconds(30));
    return agents_->StartCapture(&context, request, &capture);
  }

  v1::Capture Get(const std::string& id) {
    grpc::ClientContext context;
    rpc::SetTimeout(context, absl::Seconds(30));
    v1::GetCaptureRequest request;
    request.set_capture_id(id);
    v1::Capture capture;
    const grpc::Status status =
        agents_->GetCapture(&context, request, &capture);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return capture;
  }

  static v1::StartCaptureRequest Steps(const std::string& job,
                                       const std::string& run, int steps = 3) {
    v1::StartCaptureRequest request;
    request.set_job(job);
    request.set_run(run);
    request.set_steps(steps);
    return request;
  }

  void UploadRanks(const std::string& run, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      const testing::PreparedSpan span =
          testing::PrepareSpan(files_[i], run, 4096);
      ASSERT_TRUE(testing::UploadSpan(channel_, span).ok());
    }
  }

  grpc::Status Cancel(const std::string& id, v1::Capture& capture) {
    grpc::ClientContext context;
    rpc::SetTimeout(context, absl::Seconds(30));
    v1::CancelCaptureRequest request;
    request.set_capture_id(id);
    return agents_->CancelCapture(&context, request, &capture);
  }

  // Waits (up to 10 s) until GetCapture of `id` counts `n` answers.
  void AwaitAnswers(const std::string& id, int n) {
    int answers = 0;
    EXPECT_TRUE(WaitUntil(
        [&] {
          answers = Get(id).answers_size();
          return answers >= n;
        },
        absl::Seconds(10)))
        << "capture " << id << " counted " << answers << " of " << n
        << " answers";
  }

  std::unique_ptr<v1::Agents::Stub> agents_;
};

TEST_P(CaptureTest, ListAgentsShowsEachAgentWithItsProcesses) {
  TestAgent a(channel_, "node-a", {Process(11, "7"), Process(12, "7")},
              Trigger({}));
  TestAgent b(channel_, "node-b", {}, Trigger({}));
  AwaitAgents(2);
  v1::ListAgentsResponse response;
  ASSERT_TRUE(ListAgents(response).ok());
  ASSERT_EQ(response.agents_size(), 2);
  EXPECT_EQ(response.agents(0).agent_id(), "node-a");
  EXPECT_EQ(response.agents(0).processes_size(), 2);
  EXPECT_TRUE(response.agents(0).kineto_daemon());
  EXPECT_FALSE(response.agents(0).replica().empty());
  EXPECT_EQ(response.agents(1).agent_id(), "node-b");
}

TEST_P(CaptureTest, ACaptureOfAJobNoAgentRunsFailsFastNamingTheAgents) {
  TestAgent a(channel_, "node-a", {Process(11, "7")}, Trigger({11}));
  TestAgent b(channel_, "node-b", {}, Trigger({}));
  AwaitAgents(2);
  v1::Capture capture;
  const grpc::Status status = Start(Steps("8", "r8"), capture);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(),
              HasSubstr("no process of job 8 on the 2 agents connected: "
                        "node-a (job 7), node-b (no processes)"));
}

TEST_P(CaptureTest, OrdersReachTheAgentsWithTheJobAndTheirAnswersAreCounted) {
  TestAgent a(channel_, "node-a", {Process(11, "7"), Process(12, "7")},
              Trigger({11, 12}));
  TestAgent b(channel_, "node-b", {Process(21, "7")}, Trigger({21}));
  TestAgent other(channel_, "node-c", {Process(31, "9")}, Trigger({31}));
  AwaitAgents(3);
  v1::Capture capture;
  ASSERT_TRUE(Start(Steps("7", "job7-run"), capture).ok());
  EXPECT_EQ(capture.state(), v1::CAPTURE_STATE_RUNNING);
  EXPECT_THAT(capture.agents_asked(), ElementsAre("node-a", "node-b"));
  ASSERT_TRUE(a.AwaitOrders(1));
  ASSERT_TRUE(b.AwaitOrders(1));
  const v1::CaptureOrder order = a.orders()[0];
  EXPECT_EQ(order.run(), "job7-run");
  EXPECT_EQ(order.job(), "7");
  EXPECT_EQ(order.steps(), 3);
  EXPECT_EQ(order.start_at_step(), -1);
  EXPECT_TRUE(other.orders().empty());
  // The answers arrive on the streams; GetCapture counts them.
  AwaitAnswers("job7-run", 2);
  const v1::Capture read = Get("job7-run");
  EXPECT_EQ(read.ranks_triggered(), 3);
  EXPECT_EQ(read.state(), v1::CAPTURE_STATE_RUNNING);
}

TEST_P(CaptureTest, ASecondCaptureOfAJobWhileOneRunsIsRefused) {
  TestAgent a(channel_, "node-a", {Process(11, "7")}, Trigger({11}));
  AwaitAgents(1);
  v1::Capture capture;
  ASSERT_TRUE(Start(Steps("7", "first"), capture).ok());
  const grpc::Status second = Start(Steps("7", "second"), capture);
  EXPECT_EQ(second.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_THAT(second.error_message(),
              HasSubstr("job 7 is already capturing: capture first"));
  // --all overlaps every job.
  v1::StartCaptureRequest all = Steps("", "all-run");
  all.set_all_jobs(true);
  EXPECT_EQ(Start(all, capture).error_code(), grpc::StatusCode::ALREADY_EXISTS);
}

TEST_P(CaptureTest, EveryProcessBusyFailsTheCaptureNamingThem) {
  TestAgent a(channel_, "node-a", {Process(11, "7")},
              [](const v1::CaptureOrder& order) {
                v1::CaptureAnswer answer;
                answer.set_capture_id(order.capture_id());
                answer.add_busy_pids(11);
                return answer;
              });
  AwaitAgents(1);
  v1::Capture capture;
  ASSERT_TRUE(Start(Steps("7", "busy-run"), capture).ok());
  EXPECT_TRUE(WaitUntil(
      [&] { return Get("busy-run").state() != v1::CAPTURE_STATE_RUNNING; },
      absl::Seconds(10)))
      << "capture busy-run still running";
  const v1::Capture read = Get("busy-run");
  EXPECT_EQ(read.state(), v1::CAPTURE_STATE_FAILED);
  EXPECT_THAT(read.error(), HasSubstr("node-a: already capturing (pids 11)"));
  // A failed capture is over: the job may capture again.
  EXPECT_TRUE(Start(Steps("7", "again"), capture).ok());
}

TEST_P(CaptureTest, ACaptureIsCompleteOnceItsRunIs) {
  TestAgent a(channel_, "node-a", {Process(11, "7")}, Trigger({11}));
  AwaitAgents(1);
  v1::Capture capture;
  ASSERT_TRUE(Start(Steps("7", "dlrm-capture"), capture).ok());
  UploadRanks("dlrm-capture", 8);
  const v1::Capture read = Get("dlrm-capture");
  EXPECT_EQ(read.state(), v1::CAPTURE_STATE_COMPLETE);
  EXPECT_EQ(read.traces_uploaded(), 8);
  EXPECT_EQ(read.world_size(), 8);
}

TEST_P(CaptureTest, AtTheDeadlineACaptureIsPartialNamingTheMissingRanks) {
  // The coordinator reads a clock the test moves: no wait for the deadline,
  // and no race with it.
  options_.capture.clock = &clock_;
  RestartServer();
  agents_ = v1::Agents::NewStub(channel_);
  TestAgent a(channel_, "node-a", {Process(11, "7")}, Trigger({11}));
  AwaitAgents(1);
  v1::StartCaptureRequest request = Steps("7", "short");
  request.set_timeout_ms(absl::ToInt64Milliseconds(absl::Minutes(10)));
  v1::Capture capture;
  ASSERT_TRUE(Start(request, capture).ok());
  UploadRanks("short", 3);
  clock_.Advance(absl::Minutes(10) - absl::Milliseconds(1));
  EXPECT_EQ(Get("short").state(), v1::CAPTURE_STATE_RUNNING);
  clock_.Advance(absl::Milliseconds(1));  // the deadline
  const v1::Capture read = Get("short");
  EXPECT_EQ(read.state(), v1::CAPTURE_STATE_PARTIAL);
  EXPECT_EQ(read.traces_uploaded(), 3);
  EXPECT_THAT(read.missing_ranks(), ElementsAre(3, 4, 5, 6, 7));
}

TEST_P(CaptureTest, BadRequestsNameTheField) {
  TestAgent a(channel_, "node-a", {Process(11, "7")}, Trigger({11}));
  AwaitAgents(1);
  v1::Capture capture;
  v1::StartCaptureRequest both = Steps("7", "r");
  both.set_duration_ms(1000);
  EXPECT_THAT(Start(both, capture).error_message(),
              HasSubstr("give one of them (--steps N or --duration D)"));
  EXPECT_THAT(Start(Steps("", "r"), capture).error_message(),
              HasSubstr("give a job id or all_jobs"));
  EXPECT_THAT(Start(Steps("7", "a/b"), capture).error_message(),
              HasSubstr("run"));
  UploadRanks("stored", 1);
  EXPECT_THAT(Start(Steps("7", "stored"), capture).error_message(),
              HasSubstr("run: stored is already stored"));
  grpc::ClientContext context;
  v1::GetCaptureRequest unknown;
  unknown.set_capture_id("nope");
  EXPECT_EQ(agents_->GetCapture(&context, unknown, &capture).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

// Regression for #42: an agent restarted mid-capture answered the repeated
// order "busy" for the processes it had armed, which replaced its first
// answer and made the capture FAILED although every trace came.
TEST_P(CaptureTest, AnAgentsLaterAnswerDoesNotUndoItsFirst) {
  v1::Capture capture;
  {
    TestAgent first(channel_, "node-a", {Process(11, "7")}, Trigger({11}));
    AwaitAgents(1);
    ASSERT_TRUE(Start(Steps("7", "restarted"), capture).ok());
    ASSERT_TRUE(first.AwaitOrders(1));
    AwaitAnswers("restarted", 1);
    ASSERT_EQ(Get("restarted").ranks_triggered(), 1);
  }
  // The agent comes back and is sent the order again: its process 11 still
  // captures (busy), a new process 12 is triggered.
  TestAgent again(channel_, "node-a", {Process(11, "7"), Process(12, "7")},
                  [](const v1::CaptureOrder& order) {
                    v1::CaptureAnswer answer;
                    answer.set_capture_id(order.capture_id());
                    answer.add_busy_pids(11);
                    answer.add_triggered_pids(12);
                    return answer;
                  });
  ASSERT_TRUE(again.AwaitOrders(1));
  v1::Capture read;
  EXPECT_TRUE(WaitUntil(
      [&] {
        read = Get("restarted");
        return read.ranks_triggered() >= 2;
      },
      absl::Seconds(10)))
      << read.ranks_triggered() << " of 2 ranks triggered";
  EXPECT_EQ(read.state(), v1::CAPTURE_STATE_RUNNING) << read.error();
  EXPECT_EQ(read.ranks_triggered(), 2);
  ASSERT_EQ(read.answers_size(), 1);
  EXPECT_THAT(read.answers(0).triggered_pids(), ElementsAre(11, 12));
  EXPECT_TRUE(read.answers(0).busy_pids().empty());
  UploadRanks("restarted", 8);
  EXPECT_EQ(Get("restarted").state(), v1::CAPTURE_STATE_COMPLETE);
}

// Regression for #42: a first trace of world size 1 (another user's, say)
// made a capture of three processes COMPLETE.
TEST_P(CaptureTest, ATraceOfASmallerWorldDoesNotCompleteTheCapture) {
  TestAgent a(channel_, "node-a", {Process(11, "7"), Process(12, "7")},
              Trigger({11, 12}));
  AwaitAgents(1);
  v1::Capture capture;
  ASSERT_TRUE(Start(Steps("7", "poisoned"), capture).ok());
  AwaitAnswers("poisoned", 1);
  testing::PreparedSpan alone =
      testing::PrepareSpan(files_[0], "poisoned", 4096);
  alone.header.mutable_worker()->set_rank(0);
  alone.header.mutable_worker()->set_world_size(1);
  ASSERT_TRUE(testing::UploadSpan(channel_, alone).ok());
  const v1::Capture read = Get("poisoned");
  EXPECT_EQ(read.world_size(), 1);
  EXPECT_EQ(read.traces_uploaded(), 1);
  EXPECT_EQ(read.ranks_triggered(), 2);
  EXPECT_EQ(read.state(), v1::CAPTURE_STATE_RUNNING);
}

// Regression for #42: a capture waiting for step 2^62 held its job (and every
// --all capture) for its whole timeout; it is refused, and one waiting can be
// cancelled.
TEST_P(CaptureTest, AStartFarPastTheProcessesStepsIsRefused) {
  TestAgent a(channel_, "node-a", {Process(11, "7", /*step=*/500)},
              Trigger({11}));
  AwaitAgents(1);
  v1::Capture capture;
  v1::StartCaptureRequest far = Steps("7", "far");
  far.set_start_at_step(int64_t{1} << 62);
  grpc::Status refused = Start(far, capture);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(), HasSubstr("is outside 0..100000000"));
  far.set_start_at_step(500 + 100'001);
  refused = Start(far, capture);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("more than 100000 steps after the furthest step of job "
                        "7's processes (500)"));
  far.set_start_at_step(500 + 100'000);
  EXPECT_TRUE(Start(far, capture).ok());
}

TEST_P(CaptureTest, ACancelledCaptureReachesItsAgentsAndFreesTheJob) {
  TestAgent a(channel_, "node-a", {Process(11, "7")}, Trigger({11}));
  AwaitAgents(1);
  v1::StartCaptureRequest waiting = Steps("7", "waiting");
  waiting.set_start_at_step(90'000);
  waiting.set_timeout_ms(int64_t{24} * 3600 * 1000);
  v1::Capture capture;
  ASSERT_TRUE(Start(waiting, capture).ok());
  ASSERT_TRUE(a.AwaitOrders(1));
  // Another capture of the job is refused, naming the day it would end.
  const grpc::Status busy = Start(Steps("7", "next"), capture);
  EXPECT_EQ(busy.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_THAT(
      busy.error_message(),
      ::testing::ContainsRegex("until 20[0-9][0-9]-[01][0-9]-[0-3][0-9] "
                               "[0-9:]+ UTC"));
  EXPECT_THAT(busy.error_message(),
              HasSubstr("profdiff capture --cancel waiting"));
  ASSERT_TRUE(Cancel("waiting", capture).ok());
  EXPECT_EQ(capture.state(), v1::CAPTURE_STATE_CANCELLED);
  EXPECT_THAT(capture.error(), HasSubstr("cancelled at 20"));
  EXPECT_TRUE(a.AwaitCancel("waiting"));
  EXPECT_EQ(Get("waiting").state(), v1::CAPTURE_STATE_CANCELLED);
  // The job may capture again at once; an ended capture is not cancelled.
  EXPECT_TRUE(Start(Steps("7", "next"), capture).ok());
  const grpc::Status again = Cancel("waiting", capture);
  EXPECT_EQ(again.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(again.error_message(),
              HasSubstr("has ended (CAPTURE_STATE_CANCELLED)"));
  EXPECT_EQ(Cancel("unknown", capture).error_code(),
            grpc::StatusCode::NOT_FOUND);
}

TEST_P(CaptureTest, AControlStreamMustBeginWithTheAgentsStatus) {
  grpc::ClientContext context;
  auto stream = agents_->Control(&context);
  v1::AgentReport report;
  report.mutable_answer()->set_capture_id("x");
  ASSERT_TRUE(stream->Write(report));
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("the agent's status"));
}

INSTANTIATE_TEST_SUITE_P(Backends, CaptureTest,
                         ::testing::Values("local", "clickhouse"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// Two aggregator replicas over one ClickHouse cluster: a capture asked of
// replica A reaches an agent connected to replica B, and B's agents' answers
// are read through A.
class ReplicatedCaptureTest : public StoreFixture {
 protected:
  ReplicatedCaptureTest() : StoreFixture("clickhouse") {
    options_.capture.poll_interval = absl::Milliseconds(200);
  }
};

TEST_F(ReplicatedCaptureTest, ACaptureThroughOneReplicaReachesAgentsOfAnother) {
  AggregatorOptions options = options_;
  options.listen_address = "127.0.0.1:0";
  options.store.data_dir = (data_dir_ / "replica-b").string();
  options.store.clickhouse_url = clickhouse_url_;
  absl::StatusOr<std::unique_ptr<AggregatorServer>> replica_b =
      AggregatorServer::Start(options);
  ASSERT_TRUE(replica_b.ok()) << replica_b.status();
  const std::shared_ptr<grpc::Channel> channel_b =
      rpc::MakeChannel("127.0.0.1:" + std::to_string((*replica_b)->port()));
  TestAgent on_b(channel_b, "node-b", {Process(21, "7"), Process(22, "7")},
                 Trigger({21, 22}));
  // Replica A lists the agent of replica B once B has stored its status.
  auto agents_a = v1::Agents::NewStub(channel_);
  v1::ListAgentsResponse listed;
  grpc::Status status;
  const bool some_listed = WaitUntil(
      [&] {
        grpc::ClientContext context;
        status = agents_a->ListAgents(&context, {}, &listed);
        return !status.ok() || listed.agents_size() > 0;
      },
      absl::Seconds(20));
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(some_listed) << "replica A lists no agent";
  ASSERT_EQ(listed.agents_size(), 1);
  EXPECT_NE(listed.agents(0).replica(), "");

  grpc::ClientContext context;
  v1::StartCaptureRequest request;
  request.set_job("7");
  request.set_run("across");
  request.set_steps(2);
  v1::Capture capture;
  ASSERT_TRUE(agents_a->StartCapture(&context, request, &capture).ok());
  ASSERT_TRUE(on_b.AwaitOrders(1));
  EXPECT_EQ(on_b.orders()[0].run(), "across");
  v1::Capture read;
  const bool triggered = WaitUntil(
      [&] {
        grpc::ClientContext get;
        v1::GetCaptureRequest get_request;
        get_request.set_capture_id("across");
        status = agents_a->GetCapture(&get, get_request, &read);
        return !status.ok() || read.ranks_triggered() >= 2;
      },
      absl::Seconds(20));
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(triggered) << read.ranks_triggered()
                         << " of 2 ranks triggered, read through replica A";
  EXPECT_EQ(read.ranks_triggered(), 2);
  ASSERT_EQ(read.answers_size(), 1);
  EXPECT_EQ(read.answers(0).agent_id(), "node-b");
}

}  // namespace
}  // namespace profdiff::aggregator::store_test
