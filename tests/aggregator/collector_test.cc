// The aggregator as agents and users meet it: a real server on 127.0.0.1, real
// DLRM traces. The RunStore contract tests (TEST_P) run unchanged against both
// backends: the local data folder and a two-shard ClickHouse cluster of real
// servers.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "aggregator/aggregator_server.h"
#include "aggregator/clickhouse/clickhouse_url.h"
#include "aggregator/clickhouse/http_client.h"
#include "base/str_cat.h"
#include "client/run_loader.h"
#include "client/show_command.h"
#include "client/store_commands.h"
#include "differ/side.h"
#include "differ/table_diff.h"
#include "profdiff/v1/run_store.grpc.pb.h"
#include "rpc/channel.h"
#include "tests/aggregator/clickhouse_cluster.h"
#include "tests/aggregator/store_fixture.h"
#include "tests/aggregator/upload_test_client.h"
#include "tests/support/sums_agree.h"
#include "tests/support/trace_comparison.h"
#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::aggregator {
namespace {

namespace fs = std::filesystem;
using store_test::CollectorTest;
using store_test::DlrmDir;
using store_test::DlrmFiles;
using store_test::LocalStoreTest;
using test_support::ExpectSameEvents;
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
      client::LoadRun({DlrmDir()}, analysis::ProfileOptions{});
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

// The run tables the store reduces (SQL aggregates on ClickHouse) are the
// differ's run values, computed here by the differ itself from the full
// profiles.
TEST_P(CollectorTest, RunTablesAreTheDiffersRunValuesWithoutShippingProfiles) {
  for (const std::string& file : files_) {
    const grpc::Status status =
        UploadSpan(channel_, PrepareSpan(file, "dlrm_kineto", 2000));
    ASSERT_TRUE(status.ok()) << file << ": " << status.error_message();
  }
  absl::StatusOr<v1::RunProfile> offline =
      client::LoadRun({DlrmDir()}, analysis::ProfileOptions{});
  ASSERT_TRUE(offline.ok()) << offline.status();
  constexpr auto near = test_support::SumsAgree;
  for (const v1::Normalization normalize :
       {v1::NORMALIZATION_PER_STEP, v1::NORMALIZATION_TOTAL}) {
    for (const std::vector<int32_t>& ranks :
         {std::vector<int32_t>{}, std::vector<int32_t>{6}}) {
      SCOPED_TRACE(::testing::Message()
                   << "normalize " << normalize << " ranks " << ranks.size());
      grpc::ClientContext context;
      rpc::SetTimeout(context, absl::Seconds(60));
      v1::GetRunTablesRequest request;
      request.set_run("dlrm_kineto");
      request.set_normalize(normalize);
      if (!ranks.empty()) request.mutable_workers()->set_rank(ranks.front());
      v1::RunTables tables;
      const grpc::Status status =
          run_store_->GetRunTables(&context, request, &tables);
      ASSERT_TRUE(status.ok()) << status.error_message();
      EXPECT_EQ(tables.workers(), ranks.empty() ? 8 : 1);

      absl::StatusOr<differ::Side> side =
          differ::Side::Select(*offline, ranks, normalize, "baseline");
      ASSERT_TRUE(side.ok()) << side.status();
      differ::OperatorTables operators;
      differ::KernelTables kernels;
      for (const v1::WorkerProfile* worker : side->workers()) {
        operators.push_back(&worker->operators());
        kernels.push_back(&worker->kernels());
      }
      const std::vector<v1::OperatorDiff> op_rows =
          differ::DiffOperators(*side, operators, *side, operators, {});
      const std::vector<v1::KernelDiff> kernel_rows =
          differ::DiffKernels(*side, kernels, *side, kernels, {});
      ASSERT_EQ(tables.operators_size(), static_cast<int>(op_rows.size()));
      ASSERT_EQ(tables.kernels_size(), static_cast<int>(kernel_rows.size()));
      ASSERT_GT(op_rows.size(), 10u);
      ASSERT_GT(kernel_rows.size(), 5u);
      std::map<std::string, const v1::OperatorValues*> by_name;
      for (const v1::OperatorRunRow& row : tables.operators())
        by_name[row.name()] = &row.values();
      for (const v1::OperatorDiff& expected : op_rows) {
        ASSERT_TRUE(by_name.count(expected.name())) << expected.name();
        const v1::OperatorValues& got = *by_name[expected.name()];
        EXPECT_TRUE(near(expected.baseline().calls(), got.calls()))
            << expected.name();
        EXPECT_TRUE(
            near(expected.baseline().host_self_us(), got.host_self_us()))
            << expected.name();
        EXPECT_TRUE(
            near(expected.baseline().host_total_us(), got.host_total_us()))
            << expected.name();
        EXPECT_TRUE(
            near(expected.baseline().device_self_us(), got.device_self_us()))
            << expected.name();
        EXPECT_TRUE(
            near(expected.baseline().device_total_us(), got.device_total_us()))
            << expected.name();
      }
      std::map<std::string, const v1::KernelValues*> kernels_by_name;
      for (const v1::KernelRunRow& row : tables.kernels())
        kernels_by_name[row.name()] = &row.values();
      for (const v1::KernelDiff& expected : kernel_rows) {
        ASSERT_TRUE(kernels_by_name.count(expected.name())) << expected.name();
        const v1::KernelValues& got = *kernels_by_name[expected.name()];
        EXPECT_TRUE(near(expected.baseline().calls(), got.calls()))
            << expected.name();
        EXPECT_TRUE(near(expected.baseline().total_us(), got.total_us()))
            << expected.name();
        EXPECT_TRUE(near(expected.baseline().mean_us(), got.mean_us()))
            << expected.name();
        EXPECT_TRUE(near(expected.baseline().min_us(), got.min_us()))
            << expected.name();
        EXPECT_TRUE(near(expected.baseline().max_us(), got.max_us()))
            << expected.name();
      }
    }
  }
  if (GetParam() != "clickhouse") return;
  // An insert retried after its answer was lost stores a profile's rows twice,
  // on the same shard or (failed over) on the next: the sums must not double.
  // Copy every shard's operator and kernel rows onto itself and onto the next
  // shard, then ask again.
  const auto tables_now = [&](v1::Normalization normalize) {
    grpc::ClientContext context;
    rpc::SetTimeout(context, absl::Seconds(60));
    v1::GetRunTablesRequest request;
    request.set_run("dlrm_kineto");
    request.set_normalize(normalize);
    v1::RunTables tables;
    const grpc::Status status =
        run_store_->GetRunTables(&context, request, &tables);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return tables;
  };
  const v1::RunTables per_step = tables_now(v1::NORMALIZATION_PER_STEP);
  const v1::RunTables total = tables_now(v1::NORMALIZATION_TOTAL);
  absl::StatusOr<aggregator::clickhouse::ClickHouseUrl> url =
      aggregator::clickhouse::ParseClickHouseUrl(clickhouse_url_);
  ASSERT_TRUE(url.ok()) << url.status();
  std::vector<std::unique_ptr<aggregator::clickhouse::HttpClient>> shards;
  for (const std::string& address : url->shards) {
    shards.push_back(std::make_unique<aggregator::clickhouse::HttpClient>(
        address, url->database, absl::Seconds(30)));
  }
  for (const char* table : {"operators_local", "kernels_local"}) {
    std::vector<std::string> rows;
    for (const auto& shard : shards) {
      absl::StatusOr<std::string> read = shard->Query(
          base::StrCat("SELECT * FROM ", table, " FORMAT RowBinary"));
      ASSERT_TRUE(read.ok()) << read.status();
      rows.push_back(*std::move(read));
    }
    for (size_t i = 0; i < shards.size(); ++i) {
      const std::string insert =
          base::StrCat("INSERT INTO ", table, " FORMAT RowBinary");
      ASSERT_TRUE(shards[i]->Insert(insert, rows[i]).ok());
      ASSERT_TRUE(
          shards[(i + 1) % shards.size()]->Insert(insert, rows[i]).ok());
    }
  }
  for (const auto& [before, normalize] :
       {std::pair{&per_step, v1::NORMALIZATION_PER_STEP},
        std::pair{&total, v1::NORMALIZATION_TOTAL}}) {
    const v1::RunTables after = tables_now(normalize);
    ASSERT_EQ(after.operators_size(), before->operators_size());
    ASSERT_EQ(after.kernels_size(), before->kernels_size());
    for (int i = 0; i < before->operators_size(); ++i) {
      const v1::OperatorValues& b = before->operators(i).values();
      const v1::OperatorValues& a = after.operators(i).values();
      EXPECT_TRUE(near(b.calls(), a.calls()) &&
                  near(b.host_self_us(), a.host_self_us()) &&
                  near(b.host_total_us(), a.host_total_us()) &&
                  near(b.device_self_us(), a.device_self_us()) &&
                  near(b.device_total_us(), a.device_total_us()))
          << before->operators(i).name();
    }
    for (int i = 0; i < before->kernels_size(); ++i) {
      const v1::KernelValues& b = before->kernels(i).values();
      const v1::KernelValues& a = after.kernels(i).values();
      EXPECT_TRUE(near(b.calls(), a.calls()) &&
                  near(b.total_us(), a.total_us()) &&
                  near(b.min_us(), a.min_us()) && near(b.max_us(), a.max_us()))
          << before->kernels(i).name();
    }
  }
}

TEST_P(CollectorTest, ShowOfAStoredRunPrintsWhatShowOfTheFilesPrints) {
  for (const std::string& file : files_) {
    PreparedSpan span = PrepareSpan(file, "dlrm_kineto", 1500);
    span.header.mutable_worker()
        ->clear_hostname();  // the files do not know the host
    ASSERT_TRUE(UploadSpan(channel_, span).ok());
  }
  const std::string server = "127.0.0.1:" + std::to_string(server_->port());
  for (const char* group_by : {"name", "shape"}) {
    absl::StatusOr<std::string> stored =
        client::RunShowCommand({"dlrm_kineto", "--server", server, "--format",
                                "json", "--group-by", group_by});
    ASSERT_TRUE(stored.ok()) << stored.status();
    absl::StatusOr<std::string> offline = client::RunShowCommand(
        {DlrmDir(), "--format", "json", "--group-by", group_by});
    ASSERT_TRUE(offline.ok()) << offline.status();
    EXPECT_EQ(*stored, *offline) << "--group-by " << group_by;
  }
  absl::StatusOr<std::string> runs =
      client::RunRunsCommand({"--server", server});
  ASSERT_TRUE(runs.ok()) << runs.status();
  EXPECT_THAT(*runs, ::testing::HasSubstr("dlrm_kineto"));
  EXPECT_THAT(*runs, ::testing::HasSubstr("complete"));
  EXPECT_THAT(*runs, ::testing::HasSubstr("8/8"));
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
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    const grpc::Status again = UploadSpan(channel_, third);
    if (again.ok()) break;
    ASSERT_EQ(again.error_code(), grpc::StatusCode::UNAVAILABLE)
        << again.error_message();
    ASSERT_LT(std::chrono::steady_clock::now(), give_up)
        << "the cancelled stream kept its place";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
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

// What an export carries besides the events: the worker's metadata.
void ExpectSameMetadata(const trace::Trace& a, const trace::Trace& b) {
  EXPECT_EQ(a.metadata.rank, b.metadata.rank);
  EXPECT_EQ(a.metadata.world_size, b.metadata.world_size);
  EXPECT_EQ(a.metadata.base_time_ns, b.metadata.base_time_ns);
  EXPECT_EQ(a.metadata.devices.size(), b.metadata.devices.size());
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

TEST_P(CollectorTest, ExportCommandWritesTheTraceFile) {
  const PreparedSpan span = PrepareSpan(files_[3], "export_cli", 2000);
  ASSERT_TRUE(UploadSpan(channel_, span).ok());
  const std::string output = (data_dir_ / "rank.json").string();
  absl::StatusOr<std::string> printed = client::RunExportCommand(
      {"export_cli", "--worker", std::to_string(span.trace.metadata.rank),
       "--server", "127.0.0.1:" + std::to_string(server_->port()), "-o",
       output});
  ASSERT_TRUE(printed.ok()) << printed.status();
  absl::StatusOr<trace::Trace> exported =
      trace::KinetoReader().ReadFile(output);
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
