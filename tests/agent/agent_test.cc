// The watch-mode Agent assembled (agent.h) against an aggregator that only
// speaks Agents.Control: it orders a capture once the agent lists a Kineto
// process, as the aggregator's CaptureCoordinator does. And the upload mode
// (UploadTraceFiles) of real traces, several at once, against an in-memory
// Collector on 127.0.0.1.
#include "agent/agent.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <absl/synchronization/mutex.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/agent_state_store.h"
#include "base/str_cat.h"
#include "profdiff/v1/agents.grpc.pb.h"
#include "rpc/server.h"
#include "tests/agent/fake_collector.h"
#include "tests/agent/kineto_client_process.h"
#include "tests/support/test_dir.h"
#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
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

// `profdiff-agent upload` as the binary runs it (UploadTraceFiles), of the
// eight DLRM ranks, against the in-memory Collector the uploader tests use.
class UploadTraceFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::filesystem::path dir =
        test_support::TracesDir() / "param/dlrm_kineto";
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
      // As UploadPath spells it, and so the collector's source_path.
      files_.push_back(
          std::filesystem::absolute(entry.path()).lexically_normal().string());
    }
    std::sort(files_.begin(), files_.end());
    if (files_.size() < 8) GTEST_SKIP() << "needs the DLRM traces in " << dir;
    absl::StatusOr<rpc::RunningServer> server =
        rpc::StartServer("127.0.0.1:0", {&collector_});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  void TearDown() override {
    if (server_.server != nullptr) server_.server->Shutdown();
  }

  AgentOptions Options(int parallel) const {
    AgentOptions options;
    options.aggregator = base::StrCat("127.0.0.1:", server_.port);
    options.state_dir = state_dir_.path();
    options.upload_parallel = parallel;
    options.upload_timeout = absl::Seconds(60);
    options.files.identity.run_flag = "dlrm";
    options.files.hostname = "node-a";
    // Several chunks per file, so streams overlap for a while.
    options.files.chunk_events = 500;
    options.upload.agent_id = "node-a";
    options.upload.backoff = {.initial_delay = absl::Milliseconds(5),
                              .max_delay = absl::Milliseconds(50)};
    return options;
  }

  // Events in each file as the reader reads them.
  static int64_t EventsIn(const std::string& path) {
    absl::StatusOr<trace::Trace> trace = trace::KinetoReader().ReadFile(path);
    EXPECT_TRUE(trace.ok()) << trace.status();
    return trace.ok() ? static_cast<int64_t>(trace->events.size()) : -1;
  }

  // The streams the collector saw, by the file they carried.
  std::map<std::string, std::vector<FakeStream>> StreamsByFile() const {
    std::map<std::string, std::vector<FakeStream>> by_file;
    for (const FakeStream& stream : collector_.streams())
      by_file[stream.header.worker().source_path()].push_back(stream);
    return by_file;
  }

  // Every `paths` went up as its own closed span holding exactly its events,
  // and its state record says DONE.
  void ExpectStoredOnceEach(const std::vector<std::string>& paths) {
    const std::map<std::string, std::vector<FakeStream>> by_file =
        StreamsByFile();
    absl::StatusOr<AgentStateStore> store =
        AgentStateStore::Open(state_dir_.path());
    ASSERT_TRUE(store.ok()) << store.status();
    std::set<std::string> spans;
    for (const std::string& path : paths) {
      const auto streams = by_file.find(path);
      ASSERT_NE(streams, by_file.end()) << path;
      ASSERT_EQ(streams->second.size(), 1u) << path;
      const v1::UploadHeader& header = streams->second[0].header;
      EXPECT_FALSE(header.resume()) << path;
      EXPECT_EQ(header.run(), "dlrm");
      EXPECT_TRUE(spans.insert(header.span()).second) << header.span();
      const FakeSpan* span = collector_.span("dlrm", header.span());
      ASSERT_NE(span, nullptr) << path;
      EXPECT_TRUE(span->closed) << path;
      const int64_t events = EventsIn(path);
      EXPECT_GT(events, 500) << path;  // more than one chunk
      EXPECT_EQ(static_cast<int64_t>(span->events.events.size()), events)
          << path;
      EXPECT_EQ(span->end.event_count(), events) << path;
      absl::StatusOr<std::optional<v1::AgentFileState>> state =
          store->Read({path, Options(1).aggregator, "dlrm"});
      ASSERT_TRUE(state.ok()) << state.status();
      ASSERT_TRUE(state->has_value()) << path;
      EXPECT_EQ((*state)->state(), v1::UPLOAD_STATE_DONE) << path;
      EXPECT_EQ((*state)->span(), header.span()) << path;
    }
  }

  std::vector<std::string> files_;
  FakeCollector collector_;
  rpc::RunningServer server_;
  test_support::TempDir state_dir_;
  test_support::TempDir scratch_;
};

TEST_F(UploadTraceFilesTest, ThreeAtOnceStoreEveryFileAsItsOwnSpanOnce) {
  // Nobody is answered before three streams are open together.
  collector_.HoldUntilOpen(3);
  absl::StatusOr<std::vector<std::string>> failed =
      UploadTraceFiles(Options(3), files_);
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_THAT(*failed, IsEmpty());
  EXPECT_EQ(collector_.max_open_streams(), 3u);
  EXPECT_EQ(collector_.streams().size(), files_.size());
  ExpectStoredOnceEach(files_);

  // Again with the same state dir: every span is DONE, offered under its
  // recorded identity, and the collector, which has it closed, gets no chunk.
  failed = UploadTraceFiles(Options(3), files_);
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_THAT(*failed, IsEmpty());
  const std::vector<FakeStream> streams = collector_.streams();
  ASSERT_EQ(streams.size(), 2 * files_.size());
  for (size_t i = files_.size(); i < streams.size(); ++i) {
    EXPECT_TRUE(streams[i].header.resume());
    EXPECT_EQ(streams[i].first_chunk, -1)
        << streams[i].header.worker().source_path();
  }
  for (const auto& [path, by_path] : StreamsByFile()) {
    ASSERT_EQ(by_path.size(), 2u) << path;
    EXPECT_EQ(by_path[1].header.span(), by_path[0].header.span()) << path;
  }
}

TEST_F(UploadTraceFilesTest, OneAtATimeUploadsInTheOrderGiven) {
  const std::vector<std::string> reversed(files_.rbegin(), files_.rend());
  absl::StatusOr<std::vector<std::string>> failed =
      UploadTraceFiles(Options(1), reversed);
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_THAT(*failed, IsEmpty());
  EXPECT_EQ(collector_.max_open_streams(), 1u);
  std::vector<std::string> order;
  for (const FakeStream& stream : collector_.streams())
    order.push_back(stream.header.worker().source_path());
  EXPECT_THAT(order, ElementsAreArray(reversed));
  ExpectStoredOnceEach(files_);
}

TEST_F(UploadTraceFilesTest, FailedFilesAreReportedInTheOrderGiven) {
  const std::string damaged = scratch_.Join("worker8.1.pt.trace.json");
  std::ofstream(damaged) << "{\"traceEvents\": [";
  const std::string missing = scratch_.Join("worker9.1.pt.trace.json");
  const std::string not_a_trace = scratch_.Join("config.json");
  std::ofstream(not_a_trace) << "{\"lr\": 0.1}";
  const std::vector<std::string> paths = {files_[0], damaged,    files_[1],
                                          files_[2], missing,    files_[3],
                                          files_[4], not_a_trace};
  absl::StatusOr<std::vector<std::string>> failed =
      UploadTraceFiles(Options(3), paths);
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_THAT(*failed, ElementsAre(damaged, missing, not_a_trace));
  ExpectStoredOnceEach({files_[0], files_[1], files_[2], files_[3], files_[4]});
  EXPECT_EQ(collector_.streams().size(), 5u);
  absl::StatusOr<AgentStateStore> store =
      AgentStateStore::Open(state_dir_.path());
  ASSERT_TRUE(store.ok()) << store.status();
  for (const std::string& path : {damaged, not_a_trace}) {
    // Recorded under the run it would have gone to.
    absl::StatusOr<std::optional<v1::AgentFileState>> state =
        store->Read({path, Options(1).aggregator, "dlrm"});
    ASSERT_TRUE(state.ok()) << state.status();
    ASSERT_TRUE(state->has_value()) << path;
    EXPECT_EQ((*state)->state(), v1::UPLOAD_STATE_FAILED) << path;
  }
}

TEST_F(UploadTraceFilesTest, APathGivenTwiceIsUploadedOnceByOneWorker) {
  // Spelled differently once: the same state record, so the same worker.
  const std::string again = (std::filesystem::path(files_[1]).parent_path() /
                             "." / std::filesystem::path(files_[1]).filename())
                                .string();
  const std::vector<std::string> paths = {files_[1], files_[0], files_[1],
                                          files_[2], again};
  absl::StatusOr<std::vector<std::string>> failed =
      UploadTraceFiles(Options(4), paths);
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_THAT(*failed, IsEmpty());
  const std::vector<FakeStream> twice = StreamsByFile()[files_[1]];
  ASSERT_EQ(twice.size(), 3u);
  EXPECT_FALSE(twice[0].header.resume());
  for (size_t i = 1; i < twice.size(); ++i) {
    // After the first was acknowledged: DONE, nothing sent again.
    EXPECT_TRUE(twice[i].header.resume());
    EXPECT_EQ(twice[i].first_chunk, -1);
    EXPECT_EQ(twice[i].header.span(), twice[0].header.span());
  }
  const FakeSpan* span = collector_.span("dlrm", twice[0].header.span());
  ASSERT_NE(span, nullptr);
  EXPECT_EQ(static_cast<int64_t>(span->events.events.size()),
            EventsIn(files_[1]));
}

TEST_F(UploadTraceFilesTest, OneDeadlineBoundsTheWholeCommand) {
  // Nothing listens there: every file retries until the one deadline.
  AgentOptions options = Options(2);
  options.aggregator = "127.0.0.1:1";
  options.upload_timeout = absl::Seconds(1);
  const std::vector<std::string>& paths = files_;
  const absl::Time start = absl::Now();
  absl::StatusOr<std::vector<std::string>> failed =
      UploadTraceFiles(options, paths);
  const absl::Duration took = absl::Now() - start;
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_THAT(*failed, ElementsAreArray(paths));
  // Four rounds of two files would take 4 s with a deadline per file.
  EXPECT_LT(took, absl::Seconds(3));
  absl::StatusOr<AgentStateStore> store =
      AgentStateStore::Open(state_dir_.path());
  ASSERT_TRUE(store.ok()) << store.status();
  for (const std::string& path : paths) {
    // Cut short, not refused: the next upload resumes it.
    absl::StatusOr<std::optional<v1::AgentFileState>> state =
        store->Read({path, options.aggregator, "dlrm"});
    ASSERT_TRUE(state.ok()) << state.status();
    ASSERT_TRUE(state->has_value()) << path;
    EXPECT_EQ((*state)->state(), v1::UPLOAD_STATE_UPLOADING) << path;
  }
}

}  // namespace
}  // namespace profdiff::agent
