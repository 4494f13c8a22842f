// A stored run as its readers see it, on a real aggregator on 127.0.0.1 with
// real DLRM traces, against both backends: the CLI's show, runs and export
// print what they print for the files, and the run the store reduces is the
// one the CLI reduces from the files.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aggregator/clickhouse/clickhouse_store.h"
#include "aggregator/clickhouse/clickhouse_url.h"
#include "aggregator/clickhouse/http_client.h"
#include "analysis/run_digest.h"
#include "analysis/run_loader.h"
#include "base/str_cat.h"
#include "client/show_command.h"
#include "client/store_commands.h"
#include "tests/aggregator/store_fixture.h"
#include "tests/aggregator/upload_test_client.h"
#include "tests/support/trace_comparison.h"
#include "trace/kineto_reader.h"

namespace profdiff::aggregator {
namespace {

using store_test::CollectorTest;
using store_test::DlrmDir;
using test_support::ExpectSameEvents;
using test_support::ExpectSameMetadata;
using testing::PreparedSpan;
using testing::PrepareSpan;
using testing::UploadSpan;

INSTANTIATE_TEST_SUITE_P(Backends, CollectorTest,
                         ::testing::Values("local", "clickhouse"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// The run the store reduces next to its data (GetRunDigest) is, byte for byte,
// the digest the CLI makes of the trace folder: one reduction, in rank order,
// over the same profiles, on either backend; for every rank and for a few.
TEST_P(CollectorTest, StoredRunDigestIsTheDigestOfItsFolder) {
  for (const std::string& file : files_) {
    const grpc::Status status =
        UploadSpan(channel_, PrepareSpan(file, "dlrm_kineto", 2000));
    ASSERT_TRUE(status.ok()) << file << ": " << status.error_message();
  }
  absl::StatusOr<v1::RunProfile> offline =
      analysis::LoadRun({DlrmDir()}, analysis::ProfileOptions{});
  ASSERT_TRUE(offline.ok()) << offline.status();
  offline->set_run("dlrm_kineto");
  offline->clear_warnings();
  const auto stored_digest = [&](const std::vector<int32_t>& ranks) {
    grpc::ClientContext context;
    rpc::SetTimeout(context, absl::Seconds(60));
    v1::GetRunDigestRequest request;
    request.set_run("dlrm_kineto");
    for (const int32_t rank : ranks) request.add_ranks(rank);
    v1::RunDigest digest;
    const grpc::Status status =
        run_store_->GetRunDigest(&context, request, &digest);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return digest;
  };
  for (const std::vector<int32_t>& ranks :
       {std::vector<int32_t>{}, std::vector<int32_t>{6},
        std::vector<int32_t>{1, 3, 4}}) {
    SCOPED_TRACE(::testing::Message() << "ranks " << ranks.size());
    absl::StatusOr<v1::RunDigest> expected =
        analysis::DigestOfRun(*offline, ranks);
    ASSERT_TRUE(expected.ok()) << expected.status();
    const v1::RunDigest digest = stored_digest(ranks);
    EXPECT_EQ(digest.ranks_size(), ranks.empty() ? 8 : ranks.size());
    ASSERT_GT(digest.operators_size(), 10);
    EXPECT_EQ(digest.SerializeAsString(), expected->SerializeAsString());
  }
  // No worker of the ranks asked for: INVALID_ARGUMENT naming what the run has.
  grpc::ClientContext context;
  rpc::SetTimeout(context, absl::Seconds(60));
  v1::GetRunDigestRequest request;
  request.set_run("dlrm_kineto");
  request.add_ranks(9);
  v1::RunDigest digest;
  const grpc::Status missing =
      run_store_->GetRunDigest(&context, request, &digest);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(missing.error_message(), ::testing::HasSubstr("ranks 0-7"));
  if (GetParam() != "clickhouse") return;
  // An insert retried after its answer was lost stores a profile twice, on the
  // same shard or (failed over) on the next: the digest must not count it
  // twice. Copy every shard's profile rows onto itself and onto the next
  // shard, then ask again.
  const v1::RunDigest before = stored_digest({});
  absl::StatusOr<aggregator::clickhouse::ClickHouseUrl> url =
      aggregator::clickhouse::ParseClickHouseUrl(clickhouse_url_);
  ASSERT_TRUE(url.ok()) << url.status();
  std::vector<std::unique_ptr<aggregator::clickhouse::HttpClient>> shards;
  for (const std::string& address : url->shards) {
    shards.push_back(std::make_unique<aggregator::clickhouse::HttpClient>(
        address, url->database, absl::Seconds(30)));
  }
  std::vector<std::string> rows;
  for (const auto& shard : shards) {
    absl::StatusOr<std::string> read =
        shard->Query("SELECT * FROM profiles_local FORMAT RowBinary");
    ASSERT_TRUE(read.ok()) << read.status();
    rows.push_back(*std::move(read));
  }
  for (size_t i = 0; i < shards.size(); ++i) {
    const std::string insert = "INSERT INTO profiles_local FORMAT RowBinary";
    ASSERT_TRUE(shards[i]->Insert(insert, rows[i]).ok());
    ASSERT_TRUE(shards[(i + 1) % shards.size()]->Insert(insert, rows[i]).ok());
  }
  EXPECT_EQ(stored_digest({}).SerializeAsString(), before.SerializeAsString());
  // The server answers from digests and profiles it keeps in memory, which the
  // copied rows do not change: a store opened now (nothing in memory) reduces
  // the stored rows themselves.
  StoreOptions options;
  options.clickhouse_url = clickhouse_url_;
  absl::StatusOr<std::unique_ptr<ClickHouseStore>> fresh =
      ClickHouseStore::Open(options);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  v1::GetRunDigestRequest all;
  all.set_run("dlrm_kineto");
  absl::StatusOr<v1::RunDigest> from_rows = (*fresh)->GetRunDigest(all);
  ASSERT_TRUE(from_rows.ok()) << from_rows.status();
  EXPECT_EQ(from_rows->SerializeAsString(), before.SerializeAsString());
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

}  // namespace
}  // namespace profdiff::aggregator
