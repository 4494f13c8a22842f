// The aggregator as the RunStore contract tests meet it: a real server on
// 127.0.0.1 over the local data folder or a two-shard ClickHouse cluster of
// real servers, and the DLRM traces.
#ifndef PROFDIFF_TESTS_AGGREGATOR_STORE_FIXTURE_H_
#define PROFDIFF_TESTS_AGGREGATOR_STORE_FIXTURE_H_

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <absl/time/clock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "aggregator/aggregator_server.h"
#include "profdiff/v1/run_store.grpc.pb.h"
#include "rpc/channel.h"
#include "tests/aggregator/clickhouse_cluster.h"
#include "tests/support/manual_clock.h"
#include "tests/support/trace_comparison.h"
#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::aggregator::store_test {

namespace fs = std::filesystem;

inline std::string DlrmDir() {
  return (test_support::TracesDir() / "param/dlrm_kineto").string();
}

inline std::vector<std::string> DlrmFiles() {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(DlrmDir(), error))
    files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// One two-shard cluster for the whole test binary (started on first use,
// SIGKILLed at exit).
inline absl::StatusOr<testing::ClickHouseCluster*> SharedCluster() {
  static absl::StatusOr<std::unique_ptr<testing::ClickHouseCluster>> cluster =
      testing::ClickHouseCluster::Start(
          (fs::path(::testing::TempDir()) /
           ("collector_clickhouse_" + std::to_string(getpid())))
              .string(),
          2);
  if (!cluster.ok()) return cluster.status();
  return cluster->get();
}

// A test's name as a ClickHouse database name (at most 64 characters, kept
// apart by a hash).
inline std::string DatabaseName(std::string name) {
  const size_t hash = std::hash<std::string>{}(name) % 1000000;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return "t_" + name.substr(name.size() > 48 ? name.size() - 48 : 0) + "_" +
         std::to_string(hash);
}

class StoreFixture : public ::testing::Test {
 protected:
  explicit StoreFixture(std::string backend) : backend_(std::move(backend)) {}

  void SetUp() override {
    files_ = DlrmFiles();
    if (files_.size() != 8)
      GTEST_SKIP() << "needs the 8 DLRM traces in " << DlrmDir();
    const ::testing::TestInfo* test =
        ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string name =
        std::string(test->test_suite_name()) + "_" + test->name();
    data_dir_ =
        fs::path(::testing::TempDir()) / ("collector_" + DatabaseName(name));
    fs::remove_all(data_dir_);
    fs::create_directories(data_dir_);  // the test's own files go here too
    if (backend_ == "clickhouse") {
      absl::StatusOr<testing::ClickHouseCluster*> cluster = SharedCluster();
      if (absl::IsNotFound(cluster.status())) GTEST_SKIP() << cluster.status();
      ASSERT_TRUE(cluster.ok()) << cluster.status();
      clickhouse_url_ = (*cluster)->Url(DatabaseName(name));
    }
    StartServer();
  }

  void StartServer() {
    AggregatorOptions options = options_;
    options.listen_address = "127.0.0.1:0";
    options.store.data_dir = data_dir_;
    options.store.clickhouse_url = clickhouse_url_;
    absl::StatusOr<std::unique_ptr<AggregatorServer>> server =
        AggregatorServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(server).value();
    channel_ = rpc::MakeChannel("127.0.0.1:" + std::to_string(server_->port()));
    run_store_ = v1::RunStore::NewStub(channel_);
  }

  void RestartServer() {
    server_.reset();
    StartServer();
  }

  // Restarts the server with `options` (its address and data dir are the
  // test's).
  void RestartWith(const AggregatorOptions& options) {
    options_ = options;
    RestartServer();
  }

  AggregatorOptions options_;

  v1::StoredRun GetRun(const std::string& run,
                       grpc::Status* status_out = nullptr) {
    grpc::ClientContext context;
    rpc::SetTimeout(context, absl::Seconds(30));
    v1::GetRunRequest request;
    request.set_run(run);
    v1::StoredRun response;
    grpc::Status status = run_store_->GetRun(&context, request, &response);
    if (status_out != nullptr) {
      *status_out = status;
    } else {
      EXPECT_TRUE(status.ok()) << status.error_message();
    }
    return response;
  }

  grpc::Status GetProfile(const std::string& run, v1::RunProfile& profile) {
    grpc::ClientContext context;
    rpc::SetTimeout(context, absl::Seconds(60));
    v1::GetProfileRequest request;
    request.set_run(run);
    return run_store_->GetProfile(&context, request, &profile);
  }

  // The worker's export reads back as exactly `trace`'s events.
  void ExpectExportHolds(const std::string& run, int rank,
                         const trace::Trace& trace) {
    std::string json;
    ASSERT_TRUE(Export(run, rank, json).ok());
    absl::StatusOr<trace::Trace> exported =
        trace::ReadKinetoTrace(json, "export.json");
    ASSERT_TRUE(exported.ok()) << exported.status();
    test_support::ExpectSameEvents(trace, *exported);
  }

  grpc::Status Export(const std::string& run, int rank, std::string& json,
                      const std::string& span = "") {
    grpc::ClientContext context;
    rpc::SetTimeout(context, absl::Seconds(60));
    v1::ExportTraceRequest request;
    request.set_run(run);
    request.mutable_worker()->set_rank(rank);
    request.set_span(span);
    auto reader = run_store_->ExportTrace(&context, request);
    v1::ExportTraceChunk piece;
    while (reader->Read(&piece)) json += piece.json();
    return reader->Finish();
  }

  const std::string backend_;
  // For a test that hands it to the server (options_); declared before
  // server_, so it outlives the server's threads.
  test_support::ManualClock clock_{absl::Now()};
  std::string clickhouse_url_;  // empty: the local store
  std::vector<std::string> files_;
  fs::path data_dir_;
  std::unique_ptr<AggregatorServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::RunStore::Stub> run_store_;
};

class CollectorTest : public StoreFixture,
                      public ::testing::WithParamInterface<std::string> {
 protected:
  CollectorTest() : StoreFixture(GetParam()) {}
};

// What only the local store has: segment files on disk.
class LocalStoreTest : public StoreFixture {
 protected:
  LocalStoreTest() : StoreFixture("local") {}
};

}  // namespace profdiff::aggregator::store_test

#endif  // PROFDIFF_TESTS_AGGREGATOR_STORE_FIXTURE_H_
