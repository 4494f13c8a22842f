// The Collector's chunk pipeline on a real server on 127.0.0.1: a stream hands
// the store its next chunk while earlier ones are still being stored, and acks
// go out in chunk order, one per chunk, each only once that chunk and every
// earlier one is durable. The store here is the local store with its answers
// held back until the test releases them, in the order the test picks (the
// ClickHouse store answers as its group commits finish, which is any order
// across shards).
#include <chrono>
#include <deque>
#include <filesystem>
#include <memory>

#include <gtest/gtest.h>

#include "aggregator/collector_service.h"
#include "aggregator/open_store.h"
#include "aggregator/store/store.h"
#include "base/thread_pool.h"
#include "rpc/channel.h"
#include "rpc/server.h"
#include "tests/aggregator/upload_test_client.h"
#include "tests/support/traces_dir.h"

namespace profdiff::aggregator {
namespace {

namespace fs = std::filesystem;

// The local store, whose chunk answers wait until Release. Appends happen when
// handed over, so what is stored is real; only the answer is held.
class HeldStore final : public Store {
 public:
  explicit HeldStore(std::unique_ptr<Store> inner) : inner_(std::move(inner)) {}

  const std::vector<std::string>& recovery_notes() const override {
    return inner_->recovery_notes();
  }
  std::string Describe() const override { return inner_->Describe(); }
  absl::StatusOr<OpenedSpan> OpenSpan(const v1::UploadHeader& header) override {
    return inner_->OpenSpan(header);
  }
  absl::StatusOr<int64_t> AppendChunk(SpanLease& lease,
                                      const v1::TraceChunk& chunk) override {
    return inner_->AppendChunk(lease, chunk);
  }
  void StartAppendChunk(SpanLease& lease, const v1::TraceChunk& chunk,
                        AppendDone done) override {
    absl::StatusOr<int64_t> answer = inner_->AppendChunk(lease, chunk);
    absl::MutexLock lock(&mu_);
    held_.push_back({std::move(answer), std::move(done)});
  }
  absl::Status CloseSpan(SpanLease& lease, const v1::SpanEnd& end) override {
    closes_.fetch_add(1);
    return inner_->CloseSpan(lease, end);
  }
  absl::StatusOr<v1::ListRunsResponse> ListRuns(
      const v1::ListRunsRequest& request) const override {
    return inner_->ListRuns(request);
  }
  absl::StatusOr<v1::StoredRun> GetRun(const std::string& run,
                                       RunDetail detail) const override {
    return inner_->GetRun(run, detail);
  }
  absl::Status VisitProfiles(const v1::GetProfileRequest& request,
                             ProfileVisitor visit) const override {
    return inner_->VisitProfiles(request, visit);
  }
  absl::StatusOr<std::unique_ptr<TraceExport>> ExportTrace(
      const v1::ExportTraceRequest& request) const override {
    return inner_->ExportTrace(request);
  }

  // Waits until `count` answers are held; false after 30 s (a stream that does
  // not hand over its next chunk before the last is durable never gets there).
  bool AwaitHeld(size_t count) {
    absl::MutexLock lock(&mu_);
    awaited_ = count;
    return mu_.AwaitWithTimeout(absl::Condition(this, &HeldStore::EnoughHeld),
                                absl::Seconds(30));
  }
  // Gives the held answer `index` (in hand-over order) to the stream, or
  // `instead` when set.
  void Release(size_t index,
               std::optional<absl::Status> instead = std::nullopt) {
    Held answer;
    {
      absl::MutexLock lock(&mu_);
      answer = std::move(held_[index]);
      held_[index].given = true;
    }
    if (instead.has_value()) answer.result = *instead;
    std::move(answer.done)(std::move(answer.result));
  }
  // Gives every answer not given yet.
  void ReleaseAll() {
    std::deque<Held> left;
    {
      absl::MutexLock lock(&mu_);
      for (Held& held : held_) {
        if (held.given) continue;
        held.given = true;
        left.push_back(std::move(held));
      }
    }
    for (Held& held : left) std::move(held.done)(std::move(held.result));
  }
  int closes() const { return closes_.load(); }

 private:
  struct Held {
    absl::StatusOr<int64_t> result;
    AppendDone done;
    bool given = false;
  };
  bool EnoughHeld() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return held_.size() >= awaited_;
  }

  std::unique_ptr<Store> inner_;
  absl::Mutex mu_;
  std::deque<Held> held_ ABSL_GUARDED_BY(mu_);
  size_t awaited_ ABSL_GUARDED_BY(mu_) = 0;
  std::atomic<int> closes_{0};
};

// Counts a service hook's calls, so a test waits for a moment instead of
// sleeping past it.
class HookCount {
 public:
  void Add() {
    absl::MutexLock lock(&mu_);
    ++count_;
  }
  // False after 30 s.
  bool AwaitAtLeast(int count) {
    absl::MutexLock lock(&mu_);
    wanted_ = count;
    return mu_.AwaitWithTimeout(absl::Condition(this, &HookCount::Reached),
                                absl::Seconds(30));
  }

 private:
  bool Reached() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return count_ >= wanted_;
  }
  absl::Mutex mu_;
  int count_ ABSL_GUARDED_BY(mu_) = 0;
  int wanted_ ABSL_GUARDED_BY(mu_) = 0;
};

class CollectorPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path trace =
        test_support::TracesDir() /
        "param/dlrm_kineto/worker0_step_12.1694128201545.pt.trace.json.gz";
    if (!fs::exists(trace)) GTEST_SKIP() << "needs " << trace;
    dir_ = fs::path(::testing::TempDir()) /
           ("collector_pipeline_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    StoreOptions options;
    options.data_dir = dir_.string();
    absl::StatusOr<std::unique_ptr<Store>> local = OpenStore(options);
    ASSERT_TRUE(local.ok()) << local.status();
    store_ = std::make_unique<HeldStore>(std::move(local).value());
    CollectorHooks hooks;
    hooks.end_waits_for_chunks = [this] { end_waits_.Add(); };
    hooks.read_ended_with_chunks_in_flight = [this] {
      read_ended_with_chunks_in_flight_.Add();
    };
    hooks.stream_done = [this] { streams_done_.Add(); };
    collector_ = std::make_unique<CollectorService>(
        store_.get(), &io_pool_, &build_pool_, CollectorLimits{},
        std::move(hooks));
    absl::StatusOr<rpc::RunningServer> server =
        rpc::StartServer("127.0.0.1:0", {collector_.get()});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(server).value();
    channel_ = rpc::MakeChannel("127.0.0.1:" + std::to_string(server_.port));
    // 4 chunks of 500 events (the trace has more; the span is these four).
    span_ = testing::PrepareSpan(trace.string(), "pipeline", 500);
    ASSERT_GE(span_.chunks.size(), 4u);
    span_.chunks.resize(4);
    span_.event_count = 0;
    for (const v1::TraceChunk& chunk : span_.chunks)
      span_.event_count += chunk.events().kind_size();
  }

  void TearDown() override {
    if (store_ != nullptr)
      store_->ReleaseAll();  // a failed test may leave answers held
    if (server_.server)
      server_.server->Shutdown(std::chrono::system_clock::now() +
                               std::chrono::seconds(5));
    std::error_code error;
    fs::remove_all(dir_, error);
  }

  // Opens the span and sends all four chunks; returns the stream after the
  // header's ack.
  std::unique_ptr<testing::UploadStream> SendChunks() {
    auto stream = std::make_unique<testing::UploadStream>(channel_);
    v1::UploadAck ack;
    EXPECT_TRUE(stream->WriteHeader(span_.header));
    EXPECT_TRUE(stream->ReadAck(ack));
    EXPECT_EQ(ack.durable_sequence(), -1);
    for (const v1::TraceChunk& chunk : span_.chunks)
      EXPECT_TRUE(stream->WriteChunk(chunk));
    return stream;
  }

  // How often the service reached each hook.
  HookCount end_waits_;
  HookCount read_ended_with_chunks_in_flight_;
  HookCount streams_done_;
  fs::path dir_;
  base::ThreadPool io_pool_{2};
  base::ThreadPool build_pool_{1};
  std::unique_ptr<HeldStore> store_;
  std::unique_ptr<CollectorService> collector_;
  rpc::RunningServer server_;
  std::shared_ptr<grpc::Channel> channel_;
  testing::PreparedSpan span_;
};

TEST_F(CollectorPipelineTest,
       ChunksAreHandedOverBeforeEarlierOnesAreDurableAndAckedInOrder) {
  std::unique_ptr<testing::UploadStream> stream = SendChunks();
  // All four reach the store although none is durable yet: the stream did not
  // wait.
  ASSERT_TRUE(store_->AwaitHeld(4))
      << "the chunks were not handed over before earlier ones were durable";
  // Answers in reverse order: no ack may pass chunk 0, which is answered last.
  store_->Release(3);
  store_->Release(2);
  store_->Release(1);
  store_->Release(0);
  v1::UploadAck ack;
  for (int64_t expected = 0; expected < 4; ++expected) {
    ASSERT_TRUE(stream->ReadAck(ack));
    EXPECT_EQ(ack.durable_sequence(), expected);
    EXPECT_FALSE(ack.span_closed());
  }
  ASSERT_TRUE(stream->WriteEnd(4, span_.event_count));
  ASSERT_TRUE(stream->ReadAck(ack));
  EXPECT_TRUE(ack.span_closed());
  EXPECT_EQ(ack.durable_sequence(), 3);
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(CollectorPipelineTest, SpanEndWaitsForTheChunksStillBeingStored) {
  std::unique_ptr<testing::UploadStream> stream = SendChunks();
  ASSERT_TRUE(stream->WriteEnd(4, span_.event_count));
  ASSERT_TRUE(store_->AwaitHeld(4))
      << "the chunks were not handed over before earlier ones were durable";
  // The service has the end and holds it back: no close while chunks are held.
  ASSERT_TRUE(end_waits_.AwaitAtLeast(1))
      << "the SpanEnd did not wait for the chunks still being stored";
  EXPECT_EQ(store_->closes(), 0);
  for (size_t i = 0; i < 4; ++i) store_->Release(i);
  v1::UploadAck ack;
  for (int64_t expected = 0; expected < 4; ++expected) {
    ASSERT_TRUE(stream->ReadAck(ack));
    EXPECT_EQ(ack.durable_sequence(), expected);
  }
  ASSERT_TRUE(stream->ReadAck(ack));
  EXPECT_TRUE(ack.span_closed());
  EXPECT_EQ(store_->closes(), 1);
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(CollectorPipelineTest, AFailedChunkEndsTheStreamAndNoLaterChunkIsAcked) {
  std::unique_ptr<testing::UploadStream> stream = SendChunks();
  ASSERT_TRUE(store_->AwaitHeld(4))
      << "the chunks were not handed over before earlier ones were durable";
  store_->Release(0);
  v1::UploadAck ack;
  ASSERT_TRUE(stream->ReadAck(ack));
  EXPECT_EQ(ack.durable_sequence(), 0);
  // Chunks 2 and 3 are durable, but chunk 1 failed: acking them would tell the
  // agent chunk 1 is durable too.
  store_->Release(2);
  store_->Release(3);
  store_->Release(1, absl::UnavailableError("shard gone"));
  EXPECT_FALSE(stream->ReadAck(ack));
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(status.error_message().find("shard gone"), std::string::npos)
      << status.error_message();
  EXPECT_NE(status.error_message().find("span"), std::string::npos)
      << status.error_message();
}

TEST_F(CollectorPipelineTest,
       AnAgentThatGoesAwayMidPipelineLeavesNoStreamBehind) {
  std::unique_ptr<testing::UploadStream> stream = SendChunks();
  ASSERT_TRUE(store_->AwaitHeld(4))
      << "the chunks were not handed over before earlier ones were durable";
  const grpc::Status cancelled = stream->Cancel();
  EXPECT_EQ(cancelled.error_code(), grpc::StatusCode::CANCELLED);
  v1::UploadHeader resume = span_.header;
  resume.set_resume(true);
  {
    // The service saw the agent go; the store still has the chunks, so the
    // span stays taken while they are held.
    ASSERT_TRUE(read_ended_with_chunks_in_flight_.AwaitAtLeast(1));
    testing::UploadStream early(channel_);
    v1::UploadAck ack;
    ASSERT_TRUE(early.WriteHeader(resume));
    EXPECT_FALSE(early.ReadAck(ack));
    EXPECT_EQ(early.Finish().error_code(), grpc::StatusCode::ABORTED);
  }
  // The answers still come (the store finishes what it was handed), and then
  // the span is free.
  for (size_t i = 0; i < 4; ++i) store_->Release(i);
  // Two streams end: the early resume, and the cancelled one once its chunks
  // are answered; then nothing holds the span.
  ASSERT_TRUE(streams_done_.AwaitAtLeast(2))
      << "the cancelled stream still holds the span";
  testing::UploadStream again(channel_);
  v1::UploadAck ack;
  ASSERT_TRUE(again.WriteHeader(resume));
  ASSERT_TRUE(again.ReadAck(ack)) << again.Finish().error_message();
  EXPECT_EQ(ack.durable_sequence(), 3);  // all four were stored
  again.Cancel();
}

}  // namespace
}  // namespace profdiff::aggregator
