// A stored run as its readers see it, on a real aggregator on 127.0.0.1 with
// real DLRM traces, against both backends: the CLI's show, runs and export
// print what they print for the files, and the store's run tables are the
// differ's run values.
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aggregator/clickhouse/clickhouse_url.h"
#include "aggregator/clickhouse/http_client.h"
#include "analysis/run_digest.h"
#include "analysis/run_loader.h"
#include "base/str_cat.h"
#include "client/show_command.h"
#include "client/store_commands.h"
#include "differ/side.h"
#include "differ/table_diff.h"
#include "tests/aggregator/store_fixture.h"
#include "tests/aggregator/upload_test_client.h"
#include "tests/support/sums_agree.h"
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
      analysis::LoadRun({DlrmDir()}, analysis::ProfileOptions{});
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

      absl::StatusOr<v1::RunDigest> digest =
          analysis::DigestOfRun(*offline, ranks);
      ASSERT_TRUE(digest.ok()) << digest.status();
      const differ::Side side(*digest, normalize, "baseline");
      const differ::OperatorTables operators = &digest->operators();
      const differ::KernelTables kernels = &digest->kernels();
      const std::vector<v1::OperatorDiff> op_rows =
          differ::DiffOperators(side, operators, side, operators, {});
      const std::vector<v1::KernelDiff> kernel_rows =
          differ::DiffKernels(side, kernels, side, kernels, {});
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
