// The aggregator as agents meet it: a real server on 127.0.0.1, real DLRM
// traces (its readers, the CLI and the differ: stored_run_readers_test.cc). The
// RunStore contract tests (TEST_P) run unchanged against both backends: the
// local data folder and a two-shard ClickHouse cluster of real servers.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "aggregator/aggregator_server.h"
#include "aggregator/clickhouse/clickhouse_url.h"
#include "aggregator/clickhouse/http_client.h"
#include "analysis/run_loader.h"
#include "base/str_cat.h"
#include "profdiff/v1/run_store.grpc.pb.h"
#include "rpc/channel.h"
#include "tests/aggregator/clickhouse_cluster.h"
#include "tests/aggregator/store_fixture.h"
#include "tests/aggregator/upload_test_client.h"
#include "tests/support/trace_comparison.h"
#include "tests/support/traces_dir.h"
#include "tests/support/wait_until.h"
#include "trace/kineto_reader.h"

namespace profdiff::aggregator {
namespace {

namespace fs = std::filesystem;
using store_test::CollectorTest;
using store_test::DlrmDir;
using store_test::DlrmFiles;
using store_test::LocalStoreTest;
using test_support::ExpectSameEvents;
using test_support::ExpectSameMetadata;
using testing::PreparedSpan;
using testing::PrepareSpan;
using testing::UploadSpan;
using testing::UploadStream;

INSTANTIATE_TEST_SUITE_P(Backends, CollectorTest,
                         ::testing::Values("local", "clickhouse"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST_P(CollectorTest, EightRanksMakeOneCompleteRunWhoseProfileEqualsShow) {
  for (const std::string& file : files_) {
    const PreparedSpan span = PrepareSpan(file, "dlrm_kineto", 2000);
    const grpc::Status status = UploadSpan(channel_, span);
    ASSERT_TRUE(status.ok()) << file << ": " << status.error_message();
  }
  const v1::StoredRun run = GetRun("dlrm_kineto");
  EXPECT_EQ(run.state(), v1::RUN_STATE_COMPLETE);
  EXPECT_EQ(run.world_size(), 8);
  EXPECT_EQ(run.worker_count(), 8);
  EXPECT_EQ(run.closed_worker_count(), 8);

  v1::RunProfile stored;
  const grpc::Status status = GetProfile("dlrm_kineto", stored);
  ASSERT_TRUE(status.ok()) << status.error_message();
  absl::StatusOr<v1::RunProfile> offline =
      analysis::LoadRun({DlrmDir()}, analysis::ProfileOptions{});
  ASSERT_TRUE(offline.ok()) << offline.status();
  // The agent adds what only it knows: the host.
  for (v1::WorkerProfile& worker : *stored.mutable_workers()) {
    EXPECT_EQ(worker.worker().hostname(), "test-host");
    worker.mutable_worker()->clear_hostname();
  }
  google::protobuf::util::MessageDifferencer differencer;
  std::string report;
  differencer.ReportDifferencesToString(&report);
  EXPECT_TRUE(differencer.Compare(*offline, stored)) << report.substr(0, 4000);
}

TEST_P(CollectorTest,
       ResumeStartsAfterTheLastDurableChunkAndDuplicatesAreIgnored) {
  const PreparedSpan span = PrepareSpan(files_[0], "resume", 500);
  ASSERT_GE(span.chunks.size(), 5u);
  // The first stream stores chunks 0..2 and breaks off.
  EXPECT_EQ(UploadSpan(channel_, span, 3).error_code(),
            grpc::StatusCode::CANCELLED);

  UploadStream stream(channel_);
  v1::UploadAck ack;
  ASSERT_TRUE(stream.WriteHeader(span.header));
  ASSERT_TRUE(stream.ReadAck(ack));
  EXPECT_EQ(ack.durable_sequence(), 2);
  EXPECT_FALSE(ack.span_closed());
  // Chunk 1 again: already durable, ignored, acknowledged with the durable
  // sequence.
  ASSERT_TRUE(stream.WriteChunk(span.chunks[1]));
  ASSERT_TRUE(stream.ReadAck(ack));
  EXPECT_EQ(ack.durable_sequence(), 2);
  for (size_t k = 3; k < span.chunks.size(); ++k) {
    ASSERT_TRUE(stream.WriteChunk(span.chunks[k]));
    ASSERT_TRUE(stream.ReadAck(ack));
    EXPECT_EQ(ack.durable_sequence(), static_cast<int64_t>(k));
  }
  ASSERT_TRUE(stream.WriteEnd(span.chunks.size(), span.event_count));
  ASSERT_TRUE(stream.ReadAck(ack));
  EXPECT_TRUE(ack.span_closed());
  EXPECT_TRUE(stream.Finish().ok());

  const v1::StoredRun run = GetRun("resume");
  ASSERT_EQ(run.workers_size(), 1);
  ASSERT_EQ(run.workers(0).spans_size(), 1);
  EXPECT_EQ(run.workers(0).spans(0).event_count(), span.event_count);
  EXPECT_EQ(run.workers(0).spans(0).state(), v1::SPAN_STATE_CLOSED);
  // A closed span answers a new stream at once.
  UploadStream again(channel_);
  ASSERT_TRUE(again.WriteHeader(span.header));
  ASSERT_TRUE(again.ReadAck(ack));
  EXPECT_TRUE(ack.span_closed());
  EXPECT_TRUE(again.Finish().ok());
}

TEST_P(CollectorTest, ResumeSurvivesAnAggregatorRestart) {
  const PreparedSpan span = PrepareSpan(files_[1], "restart", 500);
  EXPECT_EQ(UploadSpan(channel_, span, 4).error_code(),
            grpc::StatusCode::CANCELLED);
  RestartServer();
  EXPECT_EQ(GetRun("restart").workers(0).spans(0).durable_sequence(), 3);
  ASSERT_TRUE(UploadSpan(channel_, span).ok());
  const v1::StoredRun run = GetRun("restart");
  EXPECT_EQ(run.workers(0).spans(0).event_count(), span.event_count);
  EXPECT_EQ(run.workers(0).spans(0).state(), v1::SPAN_STATE_CLOSED);
}

// Sends the header and chunks 0..1 of `span`, then `bad`; returns the stream's
// status.
grpc::Status SendAfterTwoChunks(const std::shared_ptr<grpc::Channel>& channel,
                                const PreparedSpan& span,
                                const v1::UploadMessage& bad) {
  UploadStream stream(channel);
  v1::UploadAck ack;
  EXPECT_TRUE(stream.WriteHeader(span.header));
  EXPECT_TRUE(stream.ReadAck(ack));
  for (int k = 0; k < 2; ++k) {
    EXPECT_TRUE(stream.WriteChunk(span.chunks[k]));
    EXPECT_TRUE(stream.ReadAck(ack));
  }
  stream.Write(bad);
  EXPECT_FALSE(stream.ReadAck(ack));
  return stream.Finish();
}

void ExpectTwoChunksStored(const v1::StoredRun& run, const PreparedSpan& span) {
  ASSERT_EQ(run.workers_size(), 1);
  EXPECT_EQ(run.workers(0).spans(0).durable_sequence(), 1);
  EXPECT_EQ(run.workers(0).spans(0).event_count(),
            span.chunks[0].events().kind_size() +
                span.chunks[1].events().kind_size());
}

TEST_P(CollectorTest, OutOfOrderChunkIsInvalidArgumentAndKeepsWhatIsStored) {
  const PreparedSpan span = PrepareSpan(files_[0], "order", 500);
  v1::UploadMessage bad;
  *bad.mutable_chunk() = span.chunks[3];
  const grpc::Status status = SendAfterTwoChunks(channel_, span, bad);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(
      status.error_message(),
      ::testing::HasSubstr("chunk sequence 3 is out of order: expected 2"));
  ExpectTwoChunksStored(GetRun("order"), span);
  // The span goes on from where it was.
  ASSERT_TRUE(UploadSpan(channel_, span).ok());
}

TEST_P(CollectorTest, InvalidUtf8NameIsInvalidArgument) {
  const PreparedSpan span = PrepareSpan(files_[0], "utf8", 500);
  v1::UploadMessage bad;
  *bad.mutable_chunk() = span.chunks[2];
  ASSERT_GT(bad.chunk().events().strings_size(), 1);
  bad.mutable_chunk()->mutable_events()->set_strings(1, "bad \xff\xfe name");
  const grpc::Status status = SendAfterTwoChunks(channel_, span, bad);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), ::testing::HasSubstr("chunk 2"));
  EXPECT_THAT(status.error_message(), ::testing::HasSubstr("UTF-8"));
  ExpectTwoChunksStored(GetRun("utf8"), span);
}

TEST_P(CollectorTest, ChunkThatDoesNotDecodeIsInvalidArgument) {
  const PreparedSpan span = PrepareSpan(files_[0], "decode", 500);
  v1::UploadMessage bad;
  *bad.mutable_chunk() = span.chunks[2];
  bad.mutable_chunk()->mutable_events()->mutable_duration_ns()->RemoveLast();
  const grpc::Status status = SendAfterTwoChunks(channel_, span, bad);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), ::testing::HasSubstr("duration_ns"));
  ExpectTwoChunksStored(GetRun("decode"), span);
}

TEST_P(CollectorTest, OversizedMessageIsResourceExhausted) {
  const PreparedSpan span = PrepareSpan(files_[0], "oversized", 500);
  v1::UploadMessage bad;
  *bad.mutable_chunk() = span.chunks[2];
  bad.mutable_chunk()->mutable_events()->add_strings(std::string(9 << 20, 'x'));
  const grpc::Status status = SendAfterTwoChunks(channel_, span, bad);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  ExpectTwoChunksStored(GetRun("oversized"), span);
}

TEST_P(CollectorTest, ChunkBeforeHeaderIsInvalidArgument) {
  const PreparedSpan span = PrepareSpan(files_[0], "noheader", 500);
  UploadStream stream(channel_);
  ASSERT_TRUE(stream.WriteChunk(span.chunks[0]));
  v1::UploadAck ack;
  EXPECT_FALSE(stream.ReadAck(ack));
  const grpc::Status status = stream.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), ::testing::HasSubstr("unknown span"));
}

TEST_P(CollectorTest, PathTraversalRunIdIsInvalidArgument) {
  PreparedSpan span = PrepareSpan(files_[0], "../../etc", 500);
  const grpc::Status status = UploadSpan(channel_, span);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              ::testing::HasSubstr("run \"../../etc\""));
  EXPECT_FALSE(fs::exists(data_dir_ / "etc"));
}

TEST_P(CollectorTest, OverlongRunIdIsInvalidArgumentNamingTheLimit) {
  PreparedSpan span = PrepareSpan(files_[0], std::string(200, 'r'), 500);
  const grpc::Status status = UploadSpan(channel_, span);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              ::testing::HasSubstr("is 200 bytes, the limit is"));
}

TEST_P(CollectorTest,
       SpanPastMaxSpanBytesIsResourceExhaustedAndKeepsWhatIsStored) {
  const PreparedSpan span = PrepareSpan(files_[0], "span-bytes", 500);
  ASSERT_GT(span.chunks.size(), 3u);
  // Room for a few chunks: the limit counts stored (compressed) bytes, against
  // the next batch's encoded size.
  const uint64_t limit = span.chunks[0].events().ByteSizeLong() +
                         span.chunks[1].events().ByteSizeLong() + 64;
  AggregatorOptions options;
  options.store.max_span_bytes = limit;
  RestartWith(options);
  const grpc::Status status = UploadSpan(channel_, span);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), ::testing::HasSubstr(base::StrCat(
                                          "max_span_bytes (", limit, ")")));
  // What was acknowledged stays, every event of it.
  const v1::StoredRun run = GetRun("span-bytes");
  ASSERT_EQ(run.workers_size(), 1);
  const int64_t durable = run.workers(0).spans(0).durable_sequence();
  ASSERT_GE(durable, 1);
  ASSERT_LT(durable, static_cast<int64_t>(span.chunks.size()) - 1);
  int64_t events = 0;
  for (int64_t k = 0; k <= durable; ++k)
    events += span.chunks[k].events().kind_size();
  EXPECT_EQ(run.workers(0).spans(0).event_count(), events);
  EXPECT_THAT(status.error_message(),
              ::testing::HasSubstr(base::StrCat("chunk ", durable + 1, ":")));
}

// Each batch limit, set below what a 500-event chunk of a real trace holds,
// refuses the chunk.
TEST_P(CollectorTest, BatchPastEachLimitIsResourceExhaustedNamingIt) {
  const PreparedSpan span = PrepareSpan(files_[0], "batch-limits", 500);
  trace::EventBatchLimits few_events;
  few_events.max_events = 100;
  trace::EventBatchLimits few_strings;
  few_strings.max_strings = 10;
  for (const auto& [limits, named] :
       {std::pair{few_events, "events"}, std::pair{few_strings, "strings"}}) {
    AggregatorOptions options;
    options.store.batch_limits = limits;
    RestartWith(options);
    const grpc::Status status = UploadSpan(channel_, span);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
        << named;
    EXPECT_THAT(status.error_message(), ::testing::HasSubstr(named));
  }
}

TEST_P(CollectorTest, OpenStreamsPastThePerAgentLimitAreRefusedUntilOneEnds) {
  AggregatorOptions options;
  options.collector.max_streams_per_agent = 2;
  RestartWith(options);
  std::vector<std::unique_ptr<UploadStream>> streams;
  v1::UploadAck ack;
  for (int i = 0; i < 2; ++i) {
    PreparedSpan span = PrepareSpan(files_[i], "streams", 500);
    span.header.set_agent_id("node-a");
    streams.push_back(std::make_unique<UploadStream>(channel_));
    ASSERT_TRUE(streams.back()->WriteHeader(span.header));
    ASSERT_TRUE(streams.back()->ReadAck(ack));
    // A chunk stored: the ClickHouse store keeps a span's row with its first
    // chunk, so a span that stored none is no worker of the run yet.
    ASSERT_TRUE(streams.back()->WriteChunk(span.chunks.front()));
    ASSERT_TRUE(streams.back()->ReadAck(ack));
  }
  PreparedSpan third = PrepareSpan(files_[2], "streams", 500);
  third.header.set_agent_id("node-a");
  UploadStream refused(channel_);
  ASSERT_TRUE(refused.WriteHeader(third.header));
  EXPECT_FALSE(refused.ReadAck(ack));
  const grpc::Status status = refused.Finish();
  EXPECT_EQ(status.error_code(),
            grpc::StatusCode::UNAVAILABLE);  // the agent retries it
  EXPECT_THAT(status.error_message(),
              ::testing::HasSubstr("the limit is 2 (--max-streams-per-agent)"));
  // Another agent is not held back, and a closed stream frees its place.
  third.header.set_agent_id("node-b");
  EXPECT_TRUE(UploadSpan(channel_, third).ok());
  EXPECT_EQ(streams.back()->Cancel().error_code(), grpc::StatusCode::CANCELLED);
  third.header.set_agent_id("node-a");
  third.header.set_resume(true);
  // The server sees the cancel shortly; a busy machine may take a while.
  grpc::Status again;
  const bool placed = test_support::WaitUntil(
      [&] {
        again = UploadSpan(channel_, third);
        return again.error_code() != grpc::StatusCode::UNAVAILABLE;
      },
      absl::Seconds(30));
  ASSERT_TRUE(placed) << "the cancelled stream kept its place";
  ASSERT_TRUE(again.ok()) << again.error_message();
  EXPECT_EQ(GetRun("streams").workers_size(), 3);
}

TEST_P(CollectorTest, SpanEndWithWrongCountsIsInvalidArgument) {
  const PreparedSpan span = PrepareSpan(files_[0], "end", 5000);
  UploadStream stream(channel_);
  v1::UploadAck ack;
  ASSERT_TRUE(stream.WriteHeader(span.header));
  ASSERT_TRUE(stream.ReadAck(ack));
  for (const v1::TraceChunk& chunk : span.chunks) {
    ASSERT_TRUE(stream.WriteChunk(chunk));
    ASSERT_TRUE(stream.ReadAck(ack));
  }
  ASSERT_TRUE(stream.WriteEnd(span.chunks.size(), span.event_count + 1));
  EXPECT_FALSE(stream.ReadAck(ack));
  const grpc::Status status = stream.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              ::testing::HasSubstr("events are stored"));
}

TEST_F(LocalStoreTest, TruncatedSegmentIsFoundAtStartUpAndOtherRunsAreServed) {
  ASSERT_TRUE(
      UploadSpan(channel_, PrepareSpan(files_[0], "damaged", 500)).ok());
  ASSERT_TRUE(
      UploadSpan(channel_, PrepareSpan(files_[1], "healthy", 500)).ok());
  server_.reset();
  // Cut the damaged run's only segment in the middle of a record.
  fs::path segment;
  for (const auto& entry :
       fs::recursive_directory_iterator(data_dir_ / "runs" / "damaged")) {
    if (entry.path().filename() == "seg-000000.log") segment = entry.path();
  }
  ASSERT_FALSE(segment.empty());
  const auto size = fs::file_size(segment);
  fs::resize_file(segment, size / 2);
  StartServer();

  const v1::StoredRun damaged = GetRun("damaged");
  ASSERT_EQ(damaged.workers_size(), 1);
  EXPECT_EQ(damaged.workers(0).spans(0).state(), v1::SPAN_STATE_INCOMPLETE);
  EXPECT_THAT(damaged.workers(0).spans(0).problem(),
              ::testing::HasSubstr("cut short"));
  EXPECT_FALSE(damaged.workers(0).profile_ready());
  EXPECT_NE(damaged.state(), v1::RUN_STATE_COMPLETE);
  std::string json;
  EXPECT_EQ(Export("damaged", 0, json, damaged.workers(0).spans(0).span())
                .error_code(),
            grpc::StatusCode::DATA_LOSS);
  v1::RunProfile profile;
  EXPECT_EQ(GetProfile("damaged", profile).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);

  EXPECT_EQ(GetRun("healthy").workers(0).spans(0).state(),
            v1::SPAN_STATE_CLOSED);
  EXPECT_TRUE(GetProfile("healthy", profile).ok());
  EXPECT_EQ(profile.workers_size(), 1);
}

TEST_P(CollectorTest, ExportedTraceReadsBackAsTheUploadedEvents) {
  const PreparedSpan span = PrepareSpan(files_[2], "export", 700);
  ASSERT_TRUE(UploadSpan(channel_, span).ok());
  std::string json;
  const grpc::Status status = Export("export", span.trace.metadata.rank, json);
  ASSERT_TRUE(status.ok()) << status.error_message();
  absl::StatusOr<trace::Trace> exported =
      trace::ReadKinetoTrace(json, "exported");
  ASSERT_TRUE(exported.ok()) << exported.status();
  ExpectSameEvents(span.trace, *exported);
  ExpectSameMetadata(span.trace, *exported);
}

TEST_P(CollectorTest, ListRunsFiltersAndPages) {
  for (const char* run : {"alpha-1", "alpha-2", "beta-1"}) {
    ASSERT_TRUE(UploadSpan(channel_, PrepareSpan(files_[0], run, 5000)).ok());
  }
  v1::ListRunsRequest request;
  request.set_filter("alpha");
  request.set_page_size(1);
  std::vector<std::string> seen;
  do {
    grpc::ClientContext context;
    rpc::SetTimeout(context, absl::Seconds(10));
    v1::ListRunsResponse response;
    ASSERT_TRUE(run_store_->ListRuns(&context, request, &response).ok());
    for (const v1::StoredRun& run : response.runs()) seen.push_back(run.run());
    request.set_page_token(response.next_page_token());
  } while (!request.page_token().empty());
  EXPECT_THAT(seen, ::testing::ElementsAre("alpha-1", "alpha-2"));
}

TEST_P(CollectorTest, UnknownRunIsNotFound) {
  grpc::Status status;
  GetRun("never-uploaded", &status);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), ::testing::HasSubstr("never-uploaded"));
}

}  // namespace
}  // namespace profdiff::aggregator
