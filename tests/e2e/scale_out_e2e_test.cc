// Scale-out as an operator runs it: two ClickHouse shards (real servers), two
// stateless profdiff-aggregator replicas over them, profdiff-agent processes
// spread over the replicas, a differ, and the profdiff binary. Replicas and
// shards are killed with SIGKILL.
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aggregator/clickhouse/http_client.h"
#include "base/str_cat.h"
#include "client/run_store_client.h"
#include "tests/aggregator/clickhouse_cluster.h"
#include "tests/e2e/e2e_processes.h"
#include "tests/support/child_process.h"
#include "tests/support/test_dir.h"
#include "tests/support/traces_dir.h"
#include "tests/support/wait_until.h"
#include "trace/kineto_reader.h"

namespace profdiff::testing {
namespace {

namespace fs = std::filesystem;
constexpr absl::Duration kStepTimeout = absl::Seconds(180);

int64_t EventCount(const std::vector<std::string>& files) {
  int64_t events = 0;
  for (const std::string& file : files) {
    absl::StatusOr<trace::Trace> trace = trace::KinetoReader().ReadFile(file);
    EXPECT_TRUE(trace.ok()) << trace.status();
    if (trace.ok()) events += static_cast<int64_t>(trace->events.size());
  }
  return events;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class ScaleOutE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string missing = bin_.Missing(); !missing.empty())
      GTEST_SKIP() << "binary not built: " << missing;
    if (ClickHouseCluster::ServerBinary().empty())
      GTEST_SKIP() << "clickhouse-server is not installed";
    files_ = DlrmFiles();
    if (files_.size() != 8)
      GTEST_SKIP() << "needs the 8 DLRM traces under "
                   << test_support::TracesDir();
    root_ = test_support::FreshTestDir("scale_out");
    absl::StatusOr<std::unique_ptr<ClickHouseCluster>> cluster =
        ClickHouseCluster::Start((root_ / "clickhouse").string(), 2);
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(cluster).value();
  }

  // Starts an aggregator replica over the cluster (or, with `local`, over a
  // data folder).
  std::string StartAggregator(std::unique_ptr<ChildProcess>& process,
                              bool local = false) {
    std::vector<std::string> args = {bin_.aggregator, "--listen=127.0.0.1:0",
                                     "--v=1"};
    args.push_back(local ? "--data-dir=" + (root_ / "local").string()
                         : "--store=" + cluster_->Url("profdiff"));
    if (!local) {
      // The events rows a killed replica held are made again by the other
      // within seconds, not minutes (a live replica stores its own within a
      // second, well inside the grace).
      args.push_back("--events-repair-interval=1s");
      args.push_back("--events-repair-grace=10s");
      // These tests count the events rows (a fresh database's table is left
      // empty by default).
      args.push_back("--clickhouse-events-table=true");
    }
    process = std::make_unique<ChildProcess>(args);
    const std::optional<std::string> line =
        process->WaitForLine(" port=", kStepTimeout);
    EXPECT_TRUE(line.has_value()) << process->Output();
    return line.has_value() ? "127.0.0.1:" + std::to_string(PortFrom(*line))
                            : "";
  }

  std::string StartDiffer(std::unique_ptr<ChildProcess>& process,
                          const std::string& store) {
    process = std::make_unique<ChildProcess>(std::vector<std::string>{
        bin_.differ, "--listen=127.0.0.1:0", "--store=" + store});
    const std::optional<std::string> line =
        process->WaitForLine(" port=", kStepTimeout);
    EXPECT_TRUE(line.has_value()) << process->Output();
    return line.has_value() ? "127.0.0.1:" + std::to_string(PortFrom(*line))
                            : "";
  }

  // An agent uploading `files` as `run` to `target` (a gRPC target naming one
  // or more replicas).
  std::unique_ptr<ChildProcess> StartUpload(
      const std::string& target, const std::string& run,
      const std::vector<std::string>& files,
      const std::string& chunk_events = "2000") {
    std::vector<std::string> args = {
        bin_.agent, "upload", "--aggregator", target, "--run", run,
        "--chunk-events", chunk_events, "--backoff-max", "200ms", "--timeout",
        "120s",
        // its own memory of acknowledged spans, so every upload sends
        "--state-dir",
        (root_ / ("agent" + std::to_string(++agents_))).string()};
    args.insert(args.end(), files.begin(), files.end());
    return std::make_unique<ChildProcess>(args);
  }

  // Two agents, each with both replicas in its target, in opposite orders: each
  // connects to its first (spreading the ranks) and moves to the other when
  // that one is gone.
  void UploadSpread(const std::string& a, const std::string& b,
                    const std::string& run) {
    auto first = StartUpload(base::StrCat("ipv4:", a, ",", b), run,
                             {files_.begin(), files_.begin() + 4});
    auto second = StartUpload(base::StrCat("ipv4:", b, ",", a), run,
                              {files_.begin() + 4, files_.end()});
    EXPECT_EQ(first->Wait(), 0) << first->Output();
    EXPECT_EQ(second->Wait(), 0) << second->Output();
  }

  // `profdiff diff` through `differ` as JSON; the exit code, and the report or
  // the error.
  int Diff(const std::string& differ, const std::string& base,
           const std::string& exp, std::string& out) {
    const fs::path report = root_ / "report.json";
    fs::remove(report);
    ChildProcess cli({bin_.cli, "diff", base, exp, "--server", differ,
                      "--format", "json", "-o", report.string(), "--timeout",
                      "120s"});
    const int code = cli.Wait();
    out = code == 0 ? ReadFile(report) : cli.Output();
    return code;
  }

  // Event rows each shard holds of `run`, counted once per chunk through the
  // ledger, once they add up to `expected` (they go in beside the acks, within
  // a second; a killed replica's by the repair) or a minute has passed.
  std::vector<int64_t> EventsPerShard(const std::string& run,
                                      int64_t expected) {
    std::vector<int64_t> counts;
    (void)test_support::WaitUntil(  // the caller checks the counts
        [&] {
          counts = CountEventsPerShard(run);
          return counts[0] + counts[1] == expected;
        },
        absl::Seconds(60));
    return counts;
  }

  std::vector<int64_t> CountEventsPerShard(const std::string& run) {
    std::vector<int64_t> counts;
    const std::string url = cluster_->Url("profdiff");
    for (int shard = 0; shard < 2; ++shard) {
      const std::string address =
          url.substr(13).substr(0, url.substr(13).find('/'));
      const std::string host = shard == 0
                                   ? address.substr(0, address.find(','))
                                   : address.substr(address.find(',') + 1);
      aggregator::clickhouse::HttpClient client(host, "profdiff",
                                                absl::Seconds(30));
      absl::StatusOr<std::string> answer = client.Query(base::StrCat(
          "SELECT count() FROM events_local WHERE run = '", run,
          "' AND (worker, span, seq, attempt) GLOBAL IN "
          "(SELECT worker, span, seq, max(attempt) FROM chunks WHERE run = '",
          run, "' GROUP BY worker, span, seq) FORMAT TSV"));
      EXPECT_TRUE(answer.ok()) << answer.status();
      counts.push_back(answer.ok() ? std::stoll(*answer) : -1);
    }
    return counts;
  }

  Binaries bin_;
  std::vector<std::string> files_;
  fs::path root_;
  std::unique_ptr<ClickHouseCluster> cluster_;
  int agents_ = 0;
};

TEST_F(ScaleOutE2eTest,
       TwoReplicasOverTwoShardsStoreTheDlrmRunAndDiffLikeTheLocalStore) {
  std::unique_ptr<ChildProcess> replica_a, replica_b, local;
  const std::string a = StartAggregator(replica_a);
  const std::string b = StartAggregator(replica_b);
  const std::string local_address = StartAggregator(local, /*local=*/true);
  ASSERT_FALSE(a.empty() || b.empty() || local_address.empty());
  for (const char* run : {"dlrm_base", "dlrm_exp"}) {
    UploadSpread(a, b, run);
    auto to_local = StartUpload(local_address, run, files_);
    EXPECT_EQ(to_local->Wait(), 0) << to_local->Output();
  }
  // Both replicas took streams.
  EXPECT_THAT(replica_a->Output(),
              ::testing::HasSubstr("span closed run dlrm_base"));
  EXPECT_THAT(replica_b->Output(),
              ::testing::HasSubstr("span closed run dlrm_base"));

  client::RunStoreClient client(b);  // any replica answers for every run
  absl::StatusOr<v1::StoredRun> run = client.GetRun("dlrm_base");
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->state(), v1::RUN_STATE_COMPLETE);
  EXPECT_EQ(run->worker_count(), 8);
  const int64_t events = EventCount(files_);
  EXPECT_EQ(run->event_count(), events);
  const std::vector<int64_t> per_shard = EventsPerShard("dlrm_base", events);
  EXPECT_GT(per_shard[0], 0);
  EXPECT_GT(per_shard[1], 0);
  EXPECT_EQ(per_shard[0] + per_shard[1], events);

  std::unique_ptr<ChildProcess> differ_ch, differ_local;
  const std::string over_clickhouse = StartDiffer(differ_ch, a);
  const std::string over_local = StartDiffer(differ_local, local_address);
  std::string from_clickhouse, from_local;
  ASSERT_EQ(Diff(over_clickhouse, "dlrm_base", "dlrm_exp", from_clickhouse), 0)
      << from_clickhouse;
  ASSERT_EQ(Diff(over_local, "dlrm_base", "dlrm_exp", from_local), 0)
      << from_local;
  EXPECT_GT(from_local.size(), 1000u);
  EXPECT_EQ(from_clickhouse, from_local);
}

TEST_F(ScaleOutE2eTest,
       ReplicaKilledMidUploadItsAgentsFinishOnTheOtherExactly) {
  std::unique_ptr<ChildProcess> replica_a, replica_b;
  const std::string a = StartAggregator(replica_a);
  const std::string b = StartAggregator(replica_b);
  ASSERT_FALSE(a.empty() || b.empty());
  // Both agents start on replica a; it dies after its tenth durable chunk (of
  // ~17 per rank).
  const std::string both = base::StrCat("ipv4:", a, ",", b);
  auto first = StartUpload(both, "failover",
                           {files_.begin(), files_.begin() + 4}, "200");
  auto second =
      StartUpload(both, "failover", {files_.begin() + 4, files_.end()}, "200");
  ASSERT_TRUE(replica_a->WaitForLine("sequence=10", kStepTimeout).has_value())
      << replica_a->Output();
  replica_a->Signal(SIGKILL);
  EXPECT_EQ(replica_a->Wait(), 128 + SIGKILL);
  EXPECT_EQ(first->Wait(), 0) << first->Output();
  EXPECT_EQ(second->Wait(), 0) << second->Output();
  EXPECT_THAT(replica_b->Output(), ::testing::HasSubstr("resume=1"));

  client::RunStoreClient client(b);
  absl::StatusOr<v1::StoredRun> run = client.GetRun("failover");
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->state(), v1::RUN_STATE_COMPLETE);
  const int64_t events = EventCount(files_);
  EXPECT_EQ(run->event_count(), events);
  const std::vector<int64_t> per_shard = EventsPerShard("failover", events);
  EXPECT_EQ(per_shard[0] + per_shard[1], events);
  // Each rank exports exactly its events: nothing lost, nothing twice.
  for (const std::string& file : files_) {
    absl::StatusOr<trace::Trace> source = trace::KinetoReader().ReadFile(file);
    ASSERT_TRUE(source.ok()) << source.status();
    absl::StatusOr<std::string> json = client.ExportTrace(
        "failover", std::to_string(source->metadata.rank), "");
    ASSERT_TRUE(json.ok()) << json.status();
    absl::StatusOr<trace::Trace> exported =
        trace::ReadKinetoTrace(*json, "exported");
    ASSERT_TRUE(exported.ok()) << exported.status();
    EXPECT_EQ(exported->events.size(), source->events.size()) << file;
  }
}

TEST_F(ScaleOutE2eTest,
       ShardDownUploadsFailOverReadsFailClearlyAndNothingIsLost) {
  std::unique_ptr<ChildProcess> replica;
  const std::string a = StartAggregator(replica);
  ASSERT_FALSE(a.empty());
  // Stored while both shards are up: part of it lives on the shard that goes
  // down.
  auto before = StartUpload(a, "before", files_);
  ASSERT_EQ(before->Wait(), 0) << before->Output();
  const std::vector<int64_t> split =
      EventsPerShard("before", EventCount(files_));
  ASSERT_GT(split[1], 0);

  cluster_->Kill(1);
  // Uploads go on: every chunk is written to the shard that answers.
  auto during = StartUpload(a, "during", files_);
  EXPECT_EQ(during->Wait(), 0) << during->Output();
  // Reads refuse to answer from half the data, naming why.
  std::unique_ptr<ChildProcess> differ;
  const std::string differ_address = StartDiffer(differ, a);
  std::string error;
  EXPECT_NE(Diff(differ_address, "before", "during", error), 0);
  EXPECT_THAT(error, ::testing::HasSubstr("unreachable"));
  EXPECT_THAT(error, ::testing::HasSubstr("partial"));

  ASSERT_TRUE(cluster_->Restart(1).ok());
  client::RunStoreClient client(a);
  const int64_t events = EventCount(files_);
  for (const char* name : {"before", "during"}) {
    absl::StatusOr<v1::StoredRun> run = client.GetRun(name);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_EQ(run->state(), v1::RUN_STATE_COMPLETE) << name;
    EXPECT_EQ(run->event_count(), events) << name;
    const std::vector<int64_t> per_shard = EventsPerShard(name, events);
    EXPECT_EQ(per_shard[0] + per_shard[1], events) << name;
  }
  // The profiles the closes could not build are built now; the diff answers.
  std::string report;
  EXPECT_EQ(Diff(differ_address, "before", "during", report), 0) << report;
}

}  // namespace
}  // namespace profdiff::testing
