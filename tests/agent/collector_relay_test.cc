// CollectorRelay on a unix socket in front of an in-memory Collector on
// loopback: a span uploaded through it arrives complete with the relay's agent
// id; a stream the aggregator breaks resumes through the relay; a refusal ends
// the client's stream instead of hanging it.
#include "agent/collector_relay.h"

#include <unistd.h>

#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/span_uploader.h"
#include "base/str_cat.h"
#include "rpc/server.h"
#include "tests/agent/fake_collector.h"
#include "tests/agent/numbered_ops_trace.h"
#include "tests/agent/temp_dir.h"

namespace profdiff::agent {
namespace {

class CollectorRelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<rpc::RunningServer> upstream =
        rpc::StartServer("127.0.0.1:0", {&collector_});
    ASSERT_TRUE(upstream.ok()) << upstream.status();
    upstream_ = *std::move(upstream);
    relay_ = std::make_unique<CollectorRelay>(
        base::StrCat("127.0.0.1:", upstream_.port), rpc::ChannelSecurity(),
        "node-agent", BackoffOptions());
    socket_ = dir_.path() + "/agent.sock";
    absl::StatusOr<rpc::RunningServer> relay =
        rpc::StartServer("unix:" + socket_, {relay_.get()});
    ASSERT_TRUE(relay.ok()) << relay.status();
    relay_server_ = *std::move(relay);
  }
  void TearDown() override {
    if (relay_server_.server != nullptr) relay_server_.server->Shutdown();
    if (upstream_.server != nullptr) upstream_.server->Shutdown();
  }

  absl::Status Upload(const trace::Trace& trace, const std::string& span,
                      absl::Duration within) {
    SpanUploaderOptions options;  // no agent id: the relay fills in its own
    options.backoff = {.initial_delay = absl::Milliseconds(5),
                       .max_delay = absl::Milliseconds(50)};
    options.deadline = absl::Now() + within;
    SpanUploader uploader("unix:" + socket_, options);
    SpanHeader header;
    header.run = "run1";
    header.span = span;
    header.worker.set_worker_name("host_1");
    header.chunk_events = 10;
    SpanUploadStats stats;
    return uploader.Upload(trace, header, std::stop_token(), stats);
  }

  // The span the fake aggregator stored: closed, with all `events`.
  void ExpectStoredComplete(const std::string& span, size_t events) {
    const FakeSpan* stored = collector_.span("run1", span);
    ASSERT_NE(stored, nullptr);
    EXPECT_TRUE(stored->closed);
    EXPECT_EQ(stored->events.events.size(), events);
  }

  TempDir dir_;
  FakeCollector collector_;
  rpc::RunningServer upstream_;
  std::unique_ptr<CollectorRelay> relay_;
  rpc::RunningServer relay_server_;
  std::string socket_;
};

TEST_F(CollectorRelayTest,
       SpanThroughTheRelayArrivesCompleteWithTheRelaysAgentId) {
  const trace::Trace trace = NumberedOpsTrace(95);
  ASSERT_TRUE(Upload(trace, "cupti.0", absl::Seconds(30)).ok());
  ExpectStoredComplete("cupti.0", 95);
  EXPECT_EQ(collector_.span("run1", "cupti.0")->end.chunk_count(),
            10u);  // 95 events, 10 a chunk
  ASSERT_FALSE(collector_.streams().empty());
  EXPECT_EQ(collector_.streams()[0].header.agent_id(), "node-agent");
}

TEST_F(CollectorRelayTest, AStreamTheAggregatorBreaksResumesThroughTheRelay) {
  collector_.BreakAfterChunk(4);  // chunks 0..4 stored, then UNAVAILABLE
  const trace::Trace trace = NumberedOpsTrace(95);
  ASSERT_TRUE(Upload(trace, "cupti.1", absl::Seconds(30)).ok());
  ExpectStoredComplete("cupti.1", 95);
  ASSERT_GE(collector_.streams().size(), 2u);
  EXPECT_EQ(collector_.streams()[1].first_chunk,
            5);  // resumed after chunk 4, the last durable
}

TEST_F(CollectorRelayTest, ARefusalReachesTheClientAsTheAggregatorsStatus) {
  collector_.RefuseWith(
      grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad span"));
  const absl::Status status =
      Upload(NumberedOpsTrace(5), "cupti.2", absl::Seconds(30));
  // The first stream is cancelled (the relay cannot end it with a status while
  // the client waits); the retry is answered with the remembered refusal, which
  // ends the upload.
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("bad span"));
  // Usually 1: the retry is answered by the relay (2 when it raced the first
  // stream's end).
  EXPECT_LE(collector_.streams().size(), 2u);
}

}  // namespace
}  // namespace profdiff::agent
