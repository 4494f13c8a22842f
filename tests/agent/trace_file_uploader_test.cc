// The per-file state machine in a real state dir against an in-memory
// Collector: a DONE span sends no chunk again, a rewritten file with other
// content is another span, a refusal or a bad run id is FAILED, a credential
// refusal is not, and a stopped upload stays UPLOADING and resumes.
#include "agent/trace_file_uploader.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/str_cat.h"
#include "rpc/server.h"
#include "tests/agent/fake_collector.h"
#include "tests/support/test_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::agent {
namespace {

using ::testing::HasSubstr;

constexpr char kTraceJson[] = R"({"traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 4242, "tid": 1, "ts": 10, "dur": 5},
  {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 12, "dur": 2},
  {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 4242, "tid": 1, "ts": 20, "dur": 1}]})";

class TraceFileUploaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<rpc::RunningServer> server =
        rpc::StartServer("127.0.0.1:0", {&collector_});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    absl::StatusOr<trace::Trace> trace =
        trace::ReadKinetoTrace(kTraceJson, "inline.json");
    ASSERT_TRUE(trace.ok()) << trace.status();
    trace_ = *std::move(trace);
  }
  void TearDown() override { server_.server->Shutdown(); }

  // A trace file at `relative` below the log dir, and its version.
  std::string WriteTrace(const std::string& relative) {
    std::string path = base::StrCat(logdir_.path(), "/", relative);
    std::filesystem::create_directories(
        std::filesystem::path(path).parent_path());
    std::ofstream(path) << kTraceJson;
    return path;
  }

  std::unique_ptr<TraceFileUploader> MakeUploader(
      const std::string& run_flag = "") {
    absl::StatusOr<AgentStateStore> store =
        AgentStateStore::Open(state_dir_.path());
    EXPECT_TRUE(store.ok()) << store.status();
    SpanUploaderOptions upload;
    upload.agent_id = "test-agent";
    upload.backoff = {.initial_delay = absl::Milliseconds(5),
                      .max_delay = absl::Milliseconds(50)};
    upload.deadline = absl::Now() + absl::Seconds(60);
    return std::make_unique<TraceFileUploader>(
        *std::move(store),
        TraceFileUploaderOptions{
            .logdir = logdir_.path(),
            .identity = {.run_flag = run_flag},
            .hostname = "node-a",
            .aggregator = base::StrCat("127.0.0.1:", server_.port)},
        std::make_unique<SpanUploader>(base::StrCat("127.0.0.1:", server_.port),
                                       upload));
  }

  // The record of `path` (of its only run, or of `run`).
  v1::AgentFileState StateOf(const std::string& path,
                             const std::string& run = "") {
    absl::StatusOr<AgentStateStore> store =
        AgentStateStore::Open(state_dir_.path());
    EXPECT_TRUE(store.ok());
    std::vector<v1::AgentFileState> found;
    for (const v1::AgentFileState& state : store->LoadAll().states) {
      if (state.path() == path && (run.empty() || state.run() == run))
        found.push_back(state);
    }
    EXPECT_EQ(found.size(), 1u) << path << " run " << run;
    return found.empty() ? v1::AgentFileState() : found[0];
  }

  FakeCollector collector_;
  rpc::RunningServer server_;
  test_support::TempDir logdir_;
  test_support::TempDir state_dir_;
  trace::Trace trace_;
  const FileVersion version_{.size_bytes = 100, .mtime_ns = 1};
};

TEST_F(TraceFileUploaderTest, UploadedFileIsDoneAndNotReadAgain) {
  const std::string path =
      WriteTrace("run1/worker3.1700000000000.pt.trace.json");
  std::unique_ptr<TraceFileUploader> uploader = MakeUploader();
  ASSERT_TRUE(uploader->ShouldRead(path, version_));
  ASSERT_TRUE(
      uploader->UploadFile(path, version_, trace_, std::stop_token()).ok());

  const v1::AgentFileState state = StateOf(path);
  EXPECT_EQ(state.state(), v1::UPLOAD_STATE_DONE);
  EXPECT_EQ(state.run(), "run1");
  EXPECT_THAT(state.span(),
              ::testing::MatchesRegex(
                  "worker3\\.1700000000000\\.pt\\.trace\\.json-[0-9a-f]{12}"));
  EXPECT_EQ(state.worker_name(), "worker3");
  EXPECT_EQ(state.rank(),
            3);  // no distributedInfo, no RANK: the digits of "worker3"
  EXPECT_EQ(state.acked_sequence(), 0);  // three events make one chunk
  EXPECT_FALSE(uploader->ShouldRead(path, version_));

  const std::vector<FakeStream> streams = collector_.streams();
  ASSERT_EQ(streams.size(), 1u);
  const v1::WorkerInfo& worker = streams[0].header.worker();
  EXPECT_EQ(worker.run(), "run1");
  EXPECT_EQ(worker.rank(), 3);
  EXPECT_EQ(worker.worker_name(), "worker3");
  EXPECT_EQ(worker.hostname(), "node-a");
  EXPECT_EQ(worker.pid(), 4242);  // the first cpu_op's pid
  EXPECT_EQ(worker.source_path(), path);
}

TEST_F(TraceFileUploaderTest, AnExplicitRunAlwaysLandsInThatRun) {
  const std::string path = WriteTrace("run1/worker0.1.pt.trace.json");
  ASSERT_TRUE(MakeUploader("first-run")
                  ->UploadFile(path, version_, trace_, std::stop_token())
                  .ok());
  // The same file with another --run: not "already done", a new span in that
  // run.
  std::unique_ptr<TraceFileUploader> other = MakeUploader("other-run");
  ASSERT_TRUE(other->ShouldRead(path, version_));
  ASSERT_TRUE(
      other->UploadFile(path, version_, trace_, std::stop_token()).ok());
  std::vector<FakeStream> streams = collector_.streams();
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(streams[0].header.worker().run(), "first-run");
  EXPECT_EQ(streams[1].header.worker().run(), "other-run");
  EXPECT_FALSE(streams[1].header.resume());
  EXPECT_EQ(StateOf(path, "first-run").state(), v1::UPLOAD_STATE_DONE);
  EXPECT_EQ(StateOf(path, "other-run").state(), v1::UPLOAD_STATE_DONE);
  // Already uploaded to that run and aggregator: not read, not sent again.
  EXPECT_FALSE(MakeUploader("other-run")->ShouldRead(path, version_));
  EXPECT_FALSE(MakeUploader("first-run")->ShouldRead(path, version_));
}

TEST_F(TraceFileUploaderTest, DoneFileOfferedAgainSendsNoChunk) {
  const std::string path = WriteTrace("run1/worker0.1.pt.trace.json");
  ASSERT_TRUE(MakeUploader()
                  ->UploadFile(path, version_, trace_, std::stop_token())
                  .ok());
  // `upload` of a DONE file by a restarted agent (same state dir): the same
  // span is offered with resume, the aggregator answers that it is closed, and
  // no chunk goes out.
  ASSERT_TRUE(MakeUploader()
                  ->UploadFile(path, version_, trace_, std::stop_token())
                  .ok());
  const std::vector<FakeStream> streams = collector_.streams();
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_TRUE(streams[1].header.resume());
  EXPECT_EQ(streams[1].header.span(), streams[0].header.span());
  EXPECT_EQ(streams[1].first_chunk, -1);
  EXPECT_EQ(StateOf(path).state(), v1::UPLOAD_STATE_DONE);
}

TEST_F(TraceFileUploaderTest, RewrittenFileWithOtherContentIsAnotherSpan) {
  const std::string path = WriteTrace("run1/worker0.1.pt.trace.json");
  std::unique_ptr<TraceFileUploader> uploader = MakeUploader();
  ASSERT_TRUE(
      uploader->UploadFile(path, version_, trace_, std::stop_token()).ok());
  const std::string first_span = StateOf(path).span();
  const FileVersion rewritten{.size_bytes = version_.size_bytes + 1,
                              .mtime_ns = 2};
  EXPECT_TRUE(uploader->ShouldRead(path, rewritten));
  absl::StatusOr<trace::Trace> other =
      trace::ReadKinetoTrace(kTraceJson, "inline.json");
  ASSERT_TRUE(other.ok()) << other.status();
  other->events.duration_ns[0] += 1;  // other content
  ASSERT_TRUE(
      uploader->UploadFile(path, rewritten, *other, std::stop_token()).ok());
  EXPECT_NE(StateOf(path).span(), first_span);
  EXPECT_TRUE(StateOf(path).span().starts_with("worker0.1.pt.trace.json-"))
      << StateOf(path).span();
  // Rewritten with the same content: the same span, which the aggregator has
  // closed already.
  const FileVersion touched{.size_bytes = version_.size_bytes + 1,
                            .mtime_ns = 3};
  ASSERT_TRUE(
      uploader->UploadFile(path, touched, *other, std::stop_token()).ok());
  const std::vector<FakeStream> streams = collector_.streams();
  EXPECT_EQ(streams.back().header.span(),
            streams[streams.size() - 2].header.span());
  EXPECT_EQ(streams.back().header.content_fingerprint().size(), 16u);
}

TEST_F(TraceFileUploaderTest, CredentialRefusalStaysUploadingAndIsRetried) {
  collector_.RefuseWith(
      grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "bad token"));
  const std::string path = WriteTrace("run1/worker0.1.pt.trace.json");
  std::unique_ptr<TraceFileUploader> uploader = MakeUploader();
  EXPECT_EQ(
      uploader->UploadFile(path, version_, trace_, std::stop_token()).code(),
      absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(StateOf(path).state(), v1::UPLOAD_STATE_UPLOADING);
  EXPECT_TRUE(uploader->ShouldRead(path, version_));
  EXPECT_THAT(uploader->PathsToRetry(absl::Seconds(5)),
              ::testing::ElementsAre(path));
  EXPECT_THAT(uploader->PathsToRetry(absl::Seconds(5)),
              ::testing::IsEmpty());  // once per refusal
}

TEST_F(TraceFileUploaderTest, RefusedFileIsFailedWithTheReason) {
  collector_.RefuseWith(
      grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad worker"));
  const std::string path = WriteTrace("run1/worker0.1.pt.trace.json");
  std::unique_ptr<TraceFileUploader> uploader = MakeUploader();
  EXPECT_EQ(
      uploader->UploadFile(path, version_, trace_, std::stop_token()).code(),
      absl::StatusCode::kInvalidArgument);
  const v1::AgentFileState state = StateOf(path);
  EXPECT_EQ(state.state(), v1::UPLOAD_STATE_FAILED);
  EXPECT_THAT(state.error(), HasSubstr("bad worker"));
  EXPECT_FALSE(uploader->ShouldRead(path, version_));
}

TEST_F(TraceFileUploaderTest,
       InvalidRunIdIsFailedWithoutContactingTheAggregator) {
  const std::string path = WriteTrace("my run/worker0.1.pt.trace.json");
  std::unique_ptr<TraceFileUploader> uploader = MakeUploader();
  EXPECT_EQ(
      uploader->UploadFile(path, version_, trace_, std::stop_token()).code(),
      absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(StateOf(path).state(), v1::UPLOAD_STATE_FAILED);
  EXPECT_THAT(StateOf(path).error(), HasSubstr("[A-Za-z0-9._-]{1,128}"));
  EXPECT_TRUE(collector_.streams().empty());
}

TEST_F(TraceFileUploaderTest, StoppedUploadStaysUploadingAndResumes) {
  const std::string path = WriteTrace("run1/worker0.1.pt.trace.json");
  std::stop_source stopped;
  stopped.request_stop();
  EXPECT_EQ(MakeUploader()
                ->UploadFile(path, version_, trace_, stopped.get_token())
                .code(),
            absl::StatusCode::kCancelled);
  EXPECT_EQ(StateOf(path).state(), v1::UPLOAD_STATE_UPLOADING);

  ASSERT_TRUE(MakeUploader()
                  ->UploadFile(path, version_, trace_, std::stop_token())
                  .ok());
  const std::vector<FakeStream> streams = collector_.streams();
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_TRUE(streams[0].header.resume());
  EXPECT_EQ(StateOf(path).state(), v1::UPLOAD_STATE_DONE);
}

TEST_F(TraceFileUploaderTest, UploadPathReadsTheFileAndRecordsAnUnreadableOne) {
  const std::string good = WriteTrace("run1/worker0.1.pt.trace.json");
  const std::string bad =
      base::StrCat(logdir_.path(), "/run1/worker1.1.pt.trace.json");
  std::ofstream(bad) << "{\"traceEvents\": [";
  std::unique_ptr<TraceFileUploader> uploader = MakeUploader();
  trace::KinetoReader reader;
  EXPECT_TRUE(uploader->UploadPath(good, reader, std::stop_token()).ok());
  EXPECT_FALSE(uploader->UploadPath(bad, reader, std::stop_token()).ok());
  EXPECT_EQ(StateOf(bad).state(), v1::UPLOAD_STATE_FAILED);
  EXPECT_EQ(uploader
                ->UploadPath(base::StrCat(logdir_.path(), "/none.json"), reader,
                             std::stop_token())
                .code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace profdiff::agent
