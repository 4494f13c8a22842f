// SpanUploader against an in-memory Collector on loopback: chunks arrive in
// order and complete, a broken stream resumes after the last durable chunk, a
// closed span sends nothing, a refusal is final, and the aggregator being away
// ends at the deadline or on stop.
#include "agent/span_uploader.h"

#include <memory>
#include <string>
#include <thread>

#include <absl/synchronization/notification.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/str_cat.h"
#include "rpc/server.h"
#include "tests/agent/fake_collector.h"
#include "tests/agent/numbered_ops_trace.h"
#include "tests/support/trace_comparison.h"
#include "trace/kineto_reader.h"

namespace profdiff::agent {
namespace {

using ::testing::HasSubstr;

constexpr char kRun[] = "run1";
constexpr char kSpan[] = "worker0.1.pt.trace.json";

trace::Trace MakeTrace(int n) { return NumberedOpsTrace(n); }

using ::profdiff::test_support::ExpectSameEvents;

SpanHeader Header(uint32_t chunk_events) {
  SpanHeader header;
  header.run = kRun;
  header.span = kSpan;
  header.worker.set_worker_name("worker0");
  header.worker.set_rank(2);
  header.chunk_events = chunk_events;
  return header;
}

SpanUploaderOptions FastRetries() {
  SpanUploaderOptions options;
  options.agent_id = "test-agent";
  options.backoff = {.initial_delay = absl::Milliseconds(5),
                     .max_delay = absl::Milliseconds(50)};
  options.stream_timeout = absl::Seconds(30);
  options.deadline = absl::Now() + absl::Seconds(60);
  return options;
}

class SpanUploaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<rpc::RunningServer> server =
        rpc::StartServer("127.0.0.1:0", {&collector_});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    address_ = base::StrCat("127.0.0.1:", server_.port);
  }
  void TearDown() override {
    if (server_.server != nullptr) server_.server->Shutdown();
  }

  FakeCollector collector_;
  rpc::RunningServer server_;
  std::string address_;
};

TEST_F(SpanUploaderTest, UploadsEveryChunkInOrderAndClosesTheSpan) {
  const trace::Trace trace = MakeTrace(50);
  SpanUploader uploader(address_, FastRetries());
  SpanUploadStats stats;
  ASSERT_TRUE(uploader.Upload(trace, Header(7), std::stop_token(), stats).ok());

  // 50 events by 7: six chunks of 7, one of 7, one of 1 -> ceil(50 / 7) = 8
  // chunks 0..7.
  EXPECT_EQ(stats.chunk_count, 8);
  EXPECT_EQ(stats.chunks_sent, 8);
  EXPECT_EQ(stats.acked_sequence, 7);
  EXPECT_EQ(stats.retries, 0);
  EXPECT_EQ(stats.events, 50);
  EXPECT_GT(stats.bytes_sent, 0);
  const FakeSpan* span = collector_.span(kRun, kSpan);
  ASSERT_NE(span, nullptr);
  EXPECT_TRUE(span->closed);
  EXPECT_EQ(span->end.chunk_count(), 8u);
  EXPECT_EQ(span->end.event_count(), 50);
  ExpectSameEvents(trace, span->events);
  const std::vector<FakeStream> streams = collector_.streams();
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_FALSE(streams[0].header.resume());
  EXPECT_EQ(streams[0].header.agent_id(), "test-agent");
  EXPECT_EQ(streams[0].header.worker().rank(), 2);
}

TEST_F(SpanUploaderTest, BrokenStreamResumesAfterTheLastDurableChunk) {
  const trace::Trace trace = MakeTrace(50);
  collector_.BreakAfterChunk(2);  // chunks 0..2 stored, then UNAVAILABLE
  SpanUploader uploader(address_, FastRetries());
  SpanUploadStats stats;
  ASSERT_TRUE(uploader.Upload(trace, Header(7), std::stop_token(), stats).ok());

  EXPECT_EQ(stats.retries, 1);
  const std::vector<FakeStream> streams = collector_.streams();
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_FALSE(streams[0].header.resume());
  EXPECT_TRUE(streams[1].header.resume());
  EXPECT_EQ(streams[1].first_chunk,
            3);  // the first ack said durable_sequence = 2
  const FakeSpan* span = collector_.span(kRun, kSpan);
  ASSERT_NE(span, nullptr);
  EXPECT_TRUE(span->closed);
  ExpectSameEvents(trace, span->events);
}

TEST_F(SpanUploaderTest, ResumeFlagIsSentOnTheFirstStream) {
  const trace::Trace trace = MakeTrace(3);
  SpanUploader uploader(address_, FastRetries());
  SpanHeader header = Header(7);
  header.resume = true;
  SpanUploadStats stats;
  ASSERT_TRUE(uploader.Upload(trace, header, std::stop_token(), stats).ok());
  ASSERT_EQ(collector_.streams().size(), 1u);
  EXPECT_TRUE(collector_.streams()[0].header.resume());
}

TEST_F(SpanUploaderTest, ClosedSpanSendsNoChunk) {
  collector_.CloseSpan(kRun, kSpan);
  const trace::Trace trace = MakeTrace(50);
  SpanUploader uploader(address_, FastRetries());
  SpanUploadStats stats;
  ASSERT_TRUE(uploader.Upload(trace, Header(7), std::stop_token(), stats).ok());
  EXPECT_EQ(stats.chunks_sent, 0);
  EXPECT_EQ(collector_.streams()[0].first_chunk, -1);
}

TEST_F(SpanUploaderTest, ChunksStayWithinTheByteBound) {
  const trace::Trace trace = MakeTrace(400);
  SpanUploaderOptions options = FastRetries();
  options.max_chunk_bytes = 2000;  // far below what 400 events encode to
  SpanUploader uploader(address_, options);
  SpanUploadStats stats;
  ASSERT_TRUE(
      uploader.Upload(trace, Header(1000), std::stop_token(), stats).ok());
  EXPECT_GT(stats.chunk_count, 1);
  const FakeSpan* span = collector_.span(kRun, kSpan);
  ASSERT_NE(span, nullptr);
  EXPECT_LE(span->max_batch_bytes, 2000u);
  ExpectSameEvents(trace, span->events);
}

TEST_F(SpanUploaderTest, RefusedSpanIsNotRetried) {
  collector_.RefuseWith(
      grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "worker_name is bad"));
  const trace::Trace trace = MakeTrace(5);
  SpanUploader uploader(address_, FastRetries());
  SpanUploadStats stats;
  const absl::Status status =
      uploader.Upload(trace, Header(7), std::stop_token(), stats);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("worker_name is bad"));
  EXPECT_THAT(status.message(), HasSubstr(base::StrCat(kRun, "/", kSpan)));
  EXPECT_EQ(stats.retries, 0);
  EXPECT_EQ(collector_.streams().size(), 1u);
}

TEST_F(SpanUploaderTest, AggregatorAwayUntilTheDeadlineIsDeadlineExceeded) {
  server_.server->Shutdown();  // nothing listens on the port any more
  server_.server.reset();
  SpanUploaderOptions options = FastRetries();
  options.deadline = absl::Now() + absl::Milliseconds(300);
  SpanUploader uploader(address_, options);
  SpanUploadStats stats;
  const absl::Status status =
      uploader.Upload(MakeTrace(5), Header(7), std::stop_token(), stats);
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(status.message(), HasSubstr("last error"));
  EXPECT_GE(stats.retries, 1);
}

TEST_F(SpanUploaderTest, StopEndsTheWaitForTheAggregator) {
  collector_.RefuseWith(
      grpc::Status(grpc::StatusCode::UNAVAILABLE, "warming up"));
  SpanUploaderOptions options = FastRetries();
  // After the first refusal the uploader waits up to an hour: only the stop can
  // end it.
  options.backoff = {.initial_delay = absl::Hours(1),
                     .max_delay = absl::Hours(1)};
  options.deadline = absl::InfiniteFuture();
  SpanUploader uploader(address_, options);
  const trace::Trace trace = MakeTrace(5);
  absl::Status status;
  absl::Notification done;
  std::jthread upload([&](const std::stop_token& stop) {
    SpanUploadStats stats;
    status = uploader.Upload(trace, Header(7), stop, stats);
    done.Notify();
  });
  ASSERT_TRUE(collector_.AwaitStreams(1));
  upload.request_stop();
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace profdiff::agent
