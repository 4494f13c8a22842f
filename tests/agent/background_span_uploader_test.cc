// BackgroundSpanUploader against an in-memory Collector on loopback: spans go
// up in order, the queue bound refuses what does not fit, Drain waits for
// acknowledgements and gives up at its deadline while the aggregator is away.
#include "agent/background_span_uploader.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "base/str_cat.h"
#include "rpc/server.h"
#include "tests/agent/fake_collector.h"
#include "tests/agent/numbered_ops_trace.h"

namespace profdiff::agent {
namespace {

FinishedSpan Span(const std::string& id, int events) {
  FinishedSpan span;
  span.trace = NumberedOpsTrace(events);
  span.header.run = "run1";
  span.header.span = id;
  span.header.worker.set_worker_name("host_1");
  span.header.chunk_events = 7;  // several chunks per span
  return span;
}

std::unique_ptr<SpanUploader> Uploader(const std::string& address) {
  SpanUploaderOptions options;
  options.backoff = {.initial_delay = absl::Milliseconds(5),
                     .max_delay = absl::Milliseconds(50)};
  return std::make_unique<SpanUploader>(address, options);
}

TEST(BackgroundSpanUploaderTest, UploadsOfferedSpansInOrder) {
  FakeCollector collector;
  absl::StatusOr<rpc::RunningServer> server =
      rpc::StartServer("127.0.0.1:0", {&collector});
  ASSERT_TRUE(server.ok()) << server.status();
  BackgroundSpanUploader uploader(
      Uploader(base::StrCat("127.0.0.1:", server->port)), 1000);
  for (int k = 0; k < 3; ++k) {
    FinishedSpan span = Span(base::StrCat("cupti.", k), 20 + k);
    ASSERT_TRUE(uploader.Offer(span));
  }
  ASSERT_TRUE(uploader.Drain(absl::Now() + absl::Seconds(30)));
  EXPECT_EQ(uploader.queued_events(), 0);
  const BackgroundUploadStats stats = uploader.stats();
  EXPECT_EQ(stats.spans_acknowledged, 3);
  EXPECT_EQ(stats.events_acknowledged, 20 + 21 + 22);
  for (int k = 0; k < 3; ++k) {
    const FakeSpan* stored = collector.span("run1", base::StrCat("cupti.", k));
    ASSERT_NE(stored, nullptr);
    EXPECT_TRUE(stored->closed);
    EXPECT_EQ(stored->events.events.size(), static_cast<size_t>(20 + k));
  }
  std::vector<FakeStream> streams = collector.streams();
  ASSERT_EQ(streams.size(), 3u);
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(streams[k].header.span(), base::StrCat("cupti.", k));
  server->server->Shutdown();
}

TEST(BackgroundSpanUploaderTest,
     QueueBoundRefusesWhatDoesNotFitWhileTheAggregatorIsAway) {
  // Nothing listens on port 1: every upload waits and retries.
  BackgroundSpanUploader uploader(Uploader("127.0.0.1:1"), 50);
  FinishedSpan first = Span("a", 30);
  FinishedSpan second = Span("b", 30);
  ASSERT_TRUE(uploader.Offer(first));
  EXPECT_FALSE(uploader.Offer(second));  // 30 + 30 > 50
  EXPECT_EQ(second.trace.events.size(),
            30u);  // not taken: the caller counts it dropped
  EXPECT_EQ(uploader.queued_events(), 30);
  EXPECT_FALSE(uploader.Drain(absl::Now() + absl::Milliseconds(200)));
}

TEST(BackgroundSpanUploaderTest,
     DestructionDoesNotWaitForAnUnreachableAggregator) {
  auto uploader =
      std::make_unique<BackgroundSpanUploader>(Uploader("127.0.0.1:1"), 1000);
  FinishedSpan a = Span("a", 5), b = Span("b", 5);
  ASSERT_TRUE(uploader->Offer(a));
  ASSERT_TRUE(uploader->Offer(b));
  EXPECT_EQ(uploader->stats().spans_acknowledged, 0);
  const absl::Time before = absl::Now();
  uploader.reset();  // cancels the retrying upload and joins
  EXPECT_LT(absl::Now() - before, absl::Seconds(5));
}

}  // namespace
}  // namespace profdiff::agent
