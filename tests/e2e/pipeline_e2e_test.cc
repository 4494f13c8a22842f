// The pipeline as an operator runs it: profdiff-aggregator and profdiff-agent
// as real processes on 127.0.0.1, real traces, crashes by SIGKILL. Waits are on
// what the processes log, never on time.
#include <signal.h>
#include <unistd.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "analysis/run_loader.h"
#include "client/run_store_client.h"
#include "tests/e2e/e2e_processes.h"
#include "tests/support/child_process.h"
#include "tests/support/test_dir.h"
#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::testing {
namespace {

namespace fs = std::filesystem;
constexpr absl::Duration kStepTimeout = absl::Seconds(120);

fs::path Traces() { return test_support::TracesDir(); }

// ~225k events: large enough that an upload in 2000-event chunks is still
// running when a process is killed after its tenth durable chunk.
fs::path BigTrace() {
  return Traces() /
         "tracelens/inference/xdit_flux_aiter/profile_trace_rank_0.json.gz";
}

class PipelineE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    aggregator_bin_ = Env("PROFDIFF_AGGREGATOR_BIN", PROFDIFF_AGGREGATOR_BIN);
    agent_bin_ = Env("PROFDIFF_AGENT_BIN", PROFDIFF_AGENT_BIN);
    if (!fs::exists(aggregator_bin_) || !fs::exists(agent_bin_)) {
      GTEST_SKIP() << "PROFDIFF_AGGREGATOR_BIN / PROFDIFF_AGENT_BIN do not "
                      "name the binaries ("
                   << aggregator_bin_ << ", " << agent_bin_ << ")";
    }
    root_ = test_support::FreshTestDir("e2e");
  }

  // Starts the aggregator on `port` (0: any) over root_/data; returns the port
  // it serves on.
  int StartAggregator(int port = 0) {
    aggregator_ = std::make_unique<ChildProcess>(std::vector<std::string>{
        aggregator_bin_, "--listen=127.0.0.1:" + std::to_string(port),
        "--data-dir=" + (root_ / "data").string(), "--v=1"});
    const std::optional<std::string> line =
        aggregator_->WaitForLine(" port=", kStepTimeout);
    EXPECT_TRUE(line.has_value()) << aggregator_->Output();
    if (!line.has_value()) return 0;
    port_ = std::stoi(line->substr(line->find(" port=") + 6));
    client_ = std::make_unique<client::RunStoreClient>(Address());
    return port_;
  }

  std::string Address() const { return "127.0.0.1:" + std::to_string(port_); }

  std::unique_ptr<ChildProcess> StartAgent(std::vector<std::string> args) {
    args.insert(args.begin(), agent_bin_);
    return std::make_unique<ChildProcess>(std::move(args));
  }

  // The stored span of a one-worker run, after its upload finished.
  v1::SpanSummary OnlySpan(const std::string& run) {
    absl::StatusOr<v1::StoredRun> stored = client_->GetRun(run);
    EXPECT_TRUE(stored.ok()) << stored.status();
    if (!stored.ok() || stored->workers_size() != 1 ||
        stored->workers(0).spans_size() != 1) {
      ADD_FAILURE() << "expected one worker with one span in run " << run;
      return {};
    }
    return stored->workers(0).spans(0);
  }

  size_t ExportedEventCount(const std::string& run) {
    absl::StatusOr<std::string> json = client_->ExportTrace(run, "0", "");
    EXPECT_TRUE(json.ok()) << json.status();
    if (!json.ok()) return 0;
    absl::StatusOr<trace::Trace> trace =
        trace::ReadKinetoTrace(*json, "exported");
    EXPECT_TRUE(trace.ok()) << trace.status();
    return trace.ok() ? trace->events.size() : 0;
  }

  std::string aggregator_bin_;
  std::string agent_bin_;
  fs::path root_;
  std::unique_ptr<ChildProcess> aggregator_;
  int port_ = 0;
  std::unique_ptr<client::RunStoreClient> client_;
};

TEST_F(PipelineE2eTest, TwoAgentsUploadEightDlrmRanksIntoOneCompleteRun) {
  const std::vector<std::string> files = DlrmFiles();
  if (files.size() != 8)
    GTEST_SKIP() << "needs the 8 DLRM traces under " << Traces();
  ASSERT_NE(StartAggregator(), 0);
  // Each agent with its own state dir: the default one may remember these files
  // from another run.
  std::vector<std::string> first = {"upload",
                                    "--aggregator",
                                    Address(),
                                    "--run",
                                    "dlrm_kineto",
                                    "--state-dir",
                                    (root_ / "state-a").string()};
  std::vector<std::string> second = first;
  second[6] = (root_ / "state-b").string();
  first.insert(first.end(), files.begin(), files.begin() + 4);
  second.insert(second.end(), files.begin() + 4, files.end());
  std::unique_ptr<ChildProcess> agent_a = StartAgent(first);
  std::unique_ptr<ChildProcess> agent_b = StartAgent(second);
  EXPECT_EQ(agent_a->Wait(), 0) << agent_a->Output();
  EXPECT_EQ(agent_b->Wait(), 0) << agent_b->Output();

  absl::StatusOr<v1::StoredRun> run = client_->GetRun("dlrm_kineto");
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->state(), v1::RUN_STATE_COMPLETE);
  EXPECT_EQ(run->worker_count(), 8);
  EXPECT_EQ(run->world_size(), 8);

  // GetProfile equals `profdiff show` on the same files, field by field.
  absl::StatusOr<v1::RunProfile> stored =
      client_->GetProfile("dlrm_kineto", {});
  ASSERT_TRUE(stored.ok()) << stored.status();
  absl::StatusOr<v1::RunProfile> offline =
      analysis::LoadRun({fs::path(files.front()).parent_path().string()}, {});
  ASSERT_TRUE(offline.ok()) << offline.status();
  char hostname[256] = {};
  gethostname(hostname, sizeof(hostname) - 1);
  for (v1::WorkerProfile& worker : *stored->mutable_workers()) {
    EXPECT_EQ(worker.worker().hostname(), hostname);
    worker.mutable_worker()->clear_hostname();
  }
  google::protobuf::util::MessageDifferencer differencer;
  std::string report;
  differencer.ReportDifferencesToString(&report);
  EXPECT_TRUE(differencer.Compare(*offline, *stored)) << report.substr(0, 4000);
}

TEST_F(PipelineE2eTest,
       AggregatorKilledMidUploadResumesWithoutLossOrDuplicates) {
  if (!fs::exists(BigTrace())) GTEST_SKIP() << "needs " << BigTrace();
  absl::StatusOr<trace::Trace> source =
      trace::KinetoReader().ReadFile(BigTrace().string());
  ASSERT_TRUE(source.ok()) << source.status();
  const int port = StartAggregator();
  ASSERT_NE(port, 0);
  std::unique_ptr<ChildProcess> agent =
      StartAgent({"upload", "--aggregator", Address(), "--run", "crash",
                  "--state-dir", (root_ / "state").string(), "--chunk-events",
                  "2000", "--backoff-max", "200ms", BigTrace().string()});
  ASSERT_TRUE(aggregator_->WaitForLine("sequence=10", kStepTimeout).has_value())
      << aggregator_->Output() << agent->Output();
  aggregator_->Signal(SIGKILL);
  EXPECT_EQ(aggregator_->Wait(), 128 + SIGKILL);
  ASSERT_EQ(StartAggregator(port),
            port);  // same port and data dir: the agent reconnects
  EXPECT_EQ(agent->Wait(), 0) << agent->Output();
  EXPECT_THAT(aggregator_->Output(), ::testing::HasSubstr("resume=1"));

  const v1::SpanSummary span = OnlySpan("crash");
  EXPECT_EQ(span.state(), v1::SPAN_STATE_CLOSED);
  EXPECT_EQ(span.event_count(), static_cast<int64_t>(source->events.size()));
  EXPECT_EQ(ExportedEventCount("crash"), source->events.size());
}

TEST_F(PipelineE2eTest,
       AgentKilledMidUploadResumesFromItsStateDirAndNeverUploadsTwice) {
  if (!fs::exists(BigTrace())) GTEST_SKIP() << "needs " << BigTrace();
  absl::StatusOr<trace::Trace> source =
      trace::KinetoReader().ReadFile(BigTrace().string());
  ASSERT_TRUE(source.ok()) << source.status();
  ASSERT_NE(StartAggregator(), 0);
  const fs::path logdir = root_ / "logdir";
  fs::create_directories(logdir / "watched");
  fs::copy_file(BigTrace(),
                logdir / "watched" / "worker0.1700000000000.pt.trace.json.gz");
  const std::vector<std::string> watch = {
      "--aggregator",  Address(),       "--logdir",
      logdir.string(), "--state-dir",   (root_ / "state").string(),
      "--settle",      "50ms",          "--chunk-events",
      "2000",          "--backoff-max", "200ms"};
  std::unique_ptr<ChildProcess> agent = StartAgent(watch);
  ASSERT_TRUE(aggregator_->WaitForLine("sequence=10", kStepTimeout).has_value())
      << aggregator_->Output() << agent->Output();
  agent->Signal(SIGKILL);
  EXPECT_EQ(agent->Wait(), 128 + SIGKILL);

  agent = StartAgent(watch);
  ASSERT_TRUE(aggregator_->WaitForLine("span closed", kStepTimeout).has_value())
      << aggregator_->Output() << agent->Output();
  ASSERT_TRUE(agent->WaitForLine("file done", kStepTimeout).has_value())
      << agent->Output();
  EXPECT_THAT(aggregator_->Output(), ::testing::HasSubstr("resume=1"));
  agent->Signal(SIGTERM);
  EXPECT_EQ(agent->Wait(), 0) << agent->Output();

  const v1::SpanSummary span = OnlySpan("watched");
  EXPECT_EQ(span.state(), v1::SPAN_STATE_CLOSED);
  EXPECT_EQ(span.event_count(), static_cast<int64_t>(source->events.size()));
  EXPECT_EQ(ExportedEventCount("watched"), source->events.size());

  // A third start finds the span acknowledged in its state dir and does not
  // upload it again: it says so when its scan reaches the file, and the
  // aggregator sees no third stream.
  std::vector<std::string> verbose = watch;
  verbose.insert(verbose.end(), {"--v", "1"});
  agent = StartAgent(verbose);
  ASSERT_TRUE(agent->WaitForLine("done=1", kStepTimeout).has_value())
      << agent->Output();
  const std::optional<std::string> skipped =
      agent->WaitForLine("skipping trace file", kStepTimeout);
  ASSERT_TRUE(skipped.has_value()) << agent->Output();
  EXPECT_THAT(*skipped, ::testing::HasSubstr("UPLOAD_STATE_DONE"));
  agent->Signal(SIGTERM);
  EXPECT_EQ(agent->Wait(), 0) << agent->Output();
  EXPECT_THAT(agent->Output(),
              ::testing::Not(::testing::HasSubstr("file done")));
  const std::string aggregator_log = aggregator_->Output();
  size_t streams = 0;
  for (size_t at = aggregator_log.find("span open"); at != std::string::npos;
       at = aggregator_log.find("span open", at + 1)) {
    ++streams;
  }
  EXPECT_EQ(streams, 2u)
      << aggregator_log;  // the killed agent's and the restarted agent's
}

}  // namespace
}  // namespace profdiff::testing
