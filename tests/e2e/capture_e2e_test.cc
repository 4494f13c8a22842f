// On-demand capture with real processes (issue 26): profdiff-aggregator,
// profdiff-differ, two profdiff-agents with --kineto-daemon (two log dirs
// standing for two nodes), and four fake ranks speaking libkineto's side of
// the daemon protocol, which write real DLRM traces when told. `profdiff
// capture` goes through the differ.
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "client/agents_client.h"
#include "client/run_store_client.h"
#include "tests/e2e/e2e_processes.h"
#include "tests/support/child_process.h"
#include "tests/support/test_dir.h"
#include "tests/support/wait_until.h"

namespace profdiff::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr absl::Duration kStepTimeout = absl::Seconds(60);
constexpr char kJob[] = "torchrun-job-7";

class CaptureE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string missing = bin_.Missing(); !missing.empty())
      GTEST_SKIP() << "binary not built: " << missing;
    dlrm_ = DlrmFiles();
    if (dlrm_.size() != 8) GTEST_SKIP() << "needs the 8 DLRM traces";
    root_ = test_support::FreshTestDir("capture_e2e");

    aggregator_ = std::make_unique<ChildProcess>(std::vector<std::string>{
        bin_.aggregator, "--listen=127.0.0.1:0",
        "--data-dir=" + (root_ / "data").string(), "--partial-after=2s"});
    std::optional<std::string> line =
        aggregator_->WaitForLine(" port=", kStepTimeout);
    ASSERT_TRUE(line.has_value()) << aggregator_->Output();
    aggregator_address_ = "127.0.0.1:" + std::to_string(PortFrom(*line));
    differ_ = std::make_unique<ChildProcess>(std::vector<std::string>{
        bin_.differ, "--listen=127.0.0.1:0", "--store=" + aggregator_address_});
    line = differ_->WaitForLine(" port=", kStepTimeout);
    ASSERT_TRUE(line.has_value()) << differ_->Output();
    differ_address_ = "127.0.0.1:" + std::to_string(PortFrom(*line));

    // Two nodes, two ranks each. One host: each node's daemon needs a name of
    // its own (a real node has one agent, serving "dynolog").
    for (const std::string node : {"node-a", "node-b"}) {
      daemons_.push_back("profdiff-e2e-" + std::to_string(::getpid()) + "-" +
                         node);
      agents_.push_back(StartAgent(agents_.size()));
    }
    for (int rank = 0; rank < 4; ++rank) {
      ranks_.push_back(std::make_unique<ChildProcess>(
          std::vector<std::string>{bin_.fake_kineto_rank, "--daemon",
                                   daemons_[rank / 2], "--trace", dlrm_[rank],
                                   "--rank", std::to_string(rank), "--world",
                                   "4", "--step-ms", "300"},
          std::vector<std::string>{std::string("TORCHELASTIC_RUN_ID=") +
                                   kJob}));
    }
    // Every rank registered, and both agents say so to the aggregator.
    for (auto& rank : ranks_) {
      ASSERT_TRUE(rank->WaitForLine("registered", kStepTimeout).has_value())
          << rank->Output();
    }
    client::AgentsClient agents(differ_address_);
    absl::Status status;
    int processes = 0;
    const bool listed_all = test_support::WaitUntil(
        [&] {
          absl::StatusOr<v1::ListAgentsResponse> listed = agents.ListAgents();
          status = listed.status();
          if (!listed.ok()) return true;
          processes = 0;
          for (const v1::AgentStatus& agent : listed->agents()) {
            for (const v1::LocalProcess& process : agent.processes()) {
              if (process.job() == kJob) ++processes;
            }
          }
          return processes >= 4;
        },
        kStepTimeout);
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_TRUE(listed_all) << processes << " of 4 processes listed\n"
                            << agents_[0]->Output() << agents_[1]->Output();
    ASSERT_EQ(processes, 4) << agents_[0]->Output() << agents_[1]->Output();
  }

  // The agent of node `index` (0: node-a, 1: node-b), as it is started at
  // first and after a restart (the same state dir).
  std::unique_ptr<ChildProcess> StartAgent(size_t index) {
    const std::string node = index == 0 ? "node-a" : "node-b";
    return std::make_unique<ChildProcess>(std::vector<std::string>{
        bin_.agent, "--aggregator", aggregator_address_, "--logdir",
        (root_ / node).string(), "--kineto-daemon", "--kineto-daemon-name",
        daemons_[index], "--agent-id", node, "--state-dir",
        (root_ / (node + "-state")).string(), "--settle", "300ms"});
  }

  std::unique_ptr<ChildProcess> Capture(std::vector<std::string> args) {
    args.insert(args.begin(),
                {bin_.cli, "capture", "--server", differ_address_});
    return std::make_unique<ChildProcess>(std::move(args));
  }

  v1::StoredRun GetRun(const std::string& run) {
    client::RunStoreClient store(differ_address_);
    absl::StatusOr<v1::StoredRun> stored = store.GetRun(run);
    EXPECT_TRUE(stored.ok()) << stored.status();
    return stored.ok() ? *stored : v1::StoredRun();
  }

  Binaries bin_;
  std::vector<std::string> dlrm_;
  fs::path root_;
  std::unique_ptr<ChildProcess> aggregator_;
  std::unique_ptr<ChildProcess> differ_;
  std::string aggregator_address_;
  std::string differ_address_;
  std::vector<std::string> daemons_;
  std::vector<std::unique_ptr<ChildProcess>> agents_;
  std::vector<std::unique_ptr<ChildProcess>> ranks_;
};

TEST_F(CaptureE2eTest, CaptureOfThreeStepsEndsWithACompleteFourRankRun) {
  auto capture = Capture(
      {"--job", kJob, "--steps", "3", "--run", "cap1", "--timeout", "60s"});
  ASSERT_EQ(capture->Wait(), 0) << capture->Output();
  EXPECT_THAT(capture->Output(),
              HasSubstr("4 processes triggered on 2/2 agents, 4/4 traces"));
  const v1::StoredRun run = GetRun("cap1");
  EXPECT_EQ(run.state(), v1::RUN_STATE_COMPLETE);
  EXPECT_EQ(run.world_size(), 4);
  EXPECT_EQ(run.closed_worker_count(), 4);
  // Each node's ranks came through that node's agent.
  for (const v1::WorkerSummary& worker : run.workers()) {
    ASSERT_FALSE(worker.spans().empty());
    EXPECT_EQ(worker.spans(0).agent_id(),
              worker.worker().rank() < 2 ? "node-a" : "node-b");
    // Whose data it is: the uid that wrote the trace file (the ranks are
    // this test's children).
    EXPECT_EQ(worker.spans(0).local_uid(), ::geteuid());
  }
  // The traces are below each agent's log dir, in the capture's folder.
  EXPECT_TRUE(fs::exists(root_ / "node-a/profdiff-captures/cap1"));
}

TEST_F(CaptureE2eTest, ASecondCaptureWhileOneRunsIsRefusedClearly) {
  auto first = Capture(
      {"--job", kJob, "--steps", "3", "--run", "long", "--timeout", "60s"});
  ASSERT_TRUE(first->WaitForLine("4 processes triggered", kStepTimeout))
      << first->Output();
  auto second = Capture({"--job", kJob, "--steps", "3", "--run", "second"});
  EXPECT_EQ(second->Wait(), 1) << second->Output();
  EXPECT_THAT(
      second->Output(),
      HasSubstr("job torchrun-job-7 is already capturing: capture long"));
  EXPECT_EQ(first->Wait(), 0) << first->Output();
}

TEST_F(CaptureE2eTest,
       AnAgentKilledMidCaptureLeavesAPartialRunNamingTheMissingRanks) {
  auto capture = Capture(
      {"--job", kJob, "--steps", "3", "--run", "cut", "--timeout", "8s"});
  ASSERT_TRUE(capture->WaitForLine("4 processes triggered", kStepTimeout))
      << capture->Output();
  // node-b dies before its ranks' traces are written (3 steps of 300 ms).
  agents_[1]->Signal(SIGKILL);
  EXPECT_EQ(capture->Wait(), 1) << capture->Output();
  EXPECT_THAT(capture->Output(),
              HasSubstr("capture cut is PARTIAL: ranks 2, 3 sent no trace "
                        "before the deadline (2 of 4 uploaded)"));
  const v1::StoredRun run = GetRun("cut");
  EXPECT_EQ(run.closed_worker_count(), 2);
  EXPECT_EQ(run.world_size(), 4);
  // Idle past --partial-after, the run itself is PARTIAL.
  EXPECT_EQ(run.state(), v1::RUN_STATE_PARTIAL);
}

// A trace of world size 1 that another process than an armed rank wrote,
// named like a rank's.
std::string LoneRankTrace() {
  return R"({"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1},
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 9, "tid": 9, "ts": 100, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 9, "tid": 9, "ts": 110, "dur": 20}
  ]})";
}

// Regression for #42: files dropped into a capture's folders by anyone but the
// armed processes (a fake rank of world size 1 before the real ones; another
// rank after the run is COMPLETE) are never uploaded, and the capture ends
// COMPLETE with the genuine ranks only.
TEST_F(CaptureE2eTest, FilesTheArmedRanksDidNotWriteAreNotUploaded) {
  auto capture = Capture(
      {"--job", kJob, "--steps", "3", "--run", "poison", "--timeout", "60s"});
  ASSERT_TRUE(capture->WaitForLine("4 processes triggered", kStepTimeout))
      << capture->Output();
  const fs::path folder = root_ / "node-a/profdiff-captures/poison";
  // The agent's folder: no other user may write there (a real one is refused).
  if (::geteuid() == 0 && fs::exists("/usr/bin/setpriv")) {
    ChildProcess other(
        {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
         "--", "/bin/sh", "-c",
         "echo '{}' > " + (folder / "x.pt.trace.json").string()});
    EXPECT_NE(other.Wait(), 0);
    EXPECT_FALSE(fs::exists(folder / "x.pt.trace.json"));
  }
  // What the agent's own user may still do: drop a lone rank among them.
  std::ofstream(folder / "poison_4242.pt.trace.json") << LoneRankTrace();
  ASSERT_EQ(capture->Wait(), 0) << capture->Output();
  v1::StoredRun run = GetRun("poison");
  EXPECT_EQ(run.world_size(), 4);
  EXPECT_EQ(run.worker_count(), 4);
  EXPECT_TRUE(
      agents_[0]->WaitForLine("capture folder file refused", kStepTimeout))
      << agents_[0]->Output();
  // A fifth "rank" after the fact is refused too; the run keeps 4 workers.
  std::ofstream(folder / "late.pt.trace.json") << LoneRankTrace();
  EXPECT_TRUE(agents_[0]->WaitForLine("late.pt.trace.json", kStepTimeout))
      << agents_[0]->Output();
  EXPECT_EQ(GetRun("poison").worker_count(), 4);
}

// Regression for #42: an agent restarted mid-capture remembers what it
// armed: no rank is armed twice, nothing is captured twice, and the capture
// ends COMPLETE.
TEST_F(CaptureE2eTest, AnAgentRestartedMidCaptureArmsNoRankTwice) {
  auto capture = Capture(
      {"--job", kJob, "--steps", "5", "--run", "restart", "--timeout", "60s"});
  ASSERT_TRUE(capture->WaitForLine("4 processes triggered", kStepTimeout))
      << capture->Output();
  // node-a's ranks took their configs (they poll every 100 ms); its agent
  // dies and comes back on the same state dir before their traces are made.
  ASSERT_TRUE(ranks_[0]->WaitForLine("capturing", kStepTimeout));
  ASSERT_TRUE(ranks_[1]->WaitForLine("capturing", kStepTimeout));
  agents_[0]->Signal(SIGKILL);
  agents_[0]->Wait();
  agents_[0] = StartAgent(0);
  ASSERT_EQ(capture->Wait(), 0) << capture->Output() << agents_[0]->Output();
  const v1::StoredRun run = GetRun("restart");
  EXPECT_EQ(run.state(), v1::RUN_STATE_COMPLETE);
  EXPECT_EQ(run.closed_worker_count(), 4);
  for (const v1::WorkerSummary& worker : run.workers()) {
    EXPECT_EQ(worker.spans_size(), 1) << worker.worker().worker_name();
  }
  // Each rank was handed one config.
  for (auto& rank : ranks_) {
    const std::string output = rank->Output();
    size_t configs = 0;
    for (size_t at = output.find("config for"); at != std::string::npos;
         at = output.find("config for", at + 1)) {
      ++configs;
    }
    EXPECT_EQ(configs, 1u) << output;
  }
}

// Regression for #42: a capture waiting for a step far away held its job; it
// is cancelled (Ctrl-C of the waiting command says how, --cancel does it) and
// the job may capture again at once. Ranks that already took the cancelled
// request hold it (kineto keeps a request it took until it runs), and a new
// capture says so instead of waiting for traces that cannot come.
TEST_F(CaptureE2eTest, AWaitingCaptureIsCancelledAndTheJobFreed) {
  auto waiting = Capture({"--job", kJob, "--steps", "2", "--start-at-step",
                          "50000", "--run", "far", "--timeout", "1h"});
  ASSERT_TRUE(waiting->WaitForLine("4 processes triggered", kStepTimeout))
      << waiting->Output();
  for (auto& rank : ranks_) {
    ASSERT_TRUE(rank->WaitForLine("from step 50000", kStepTimeout))
        << rank->Output();
  }
  waiting->Signal(SIGINT);
  EXPECT_EQ(waiting->Wait(), 130) << waiting->Output();
  EXPECT_THAT(waiting->Output(),
              HasSubstr("stopped waiting; capture far goes on until its "
                        "deadline: profdiff capture --wait far follows it, "
                        "profdiff capture --cancel far cancels it"));
  auto refused = Capture({"--job", kJob, "--steps", "2", "--run", "blocked"});
  EXPECT_EQ(refused->Wait(), 1) << refused->Output();
  EXPECT_THAT(refused->Output(), HasSubstr("profdiff capture --cancel far"));
  ChildProcess cancel(
      {bin_.cli, "capture", "--server", differ_address_, "--cancel", "far"});
  EXPECT_EQ(cancel.Wait(), 0) << cancel.Output();
  EXPECT_THAT(cancel.Output(), ::testing::IsEmpty());
  for (auto& agent : agents_) {
    EXPECT_TRUE(
        agent->WaitForLine("capture cancelled capture=far", kStepTimeout))
        << agent->Output();
  }
  // The job is free: the aggregator takes the capture, and the agents say
  // why their ranks cannot take it.
  auto again = Capture({"--job", kJob, "--steps", "2", "--run", "after"});
  EXPECT_EQ(again->Wait(), 1) << again->Output();
  EXPECT_THAT(again->Output(),
              HasSubstr("took capture far's config before it was cancelled"));
}

TEST_F(CaptureE2eTest, ACaptureOfAJobNoRankRunsFailsFastNamingTheAgents) {
  auto capture = Capture({"--job", "other-job", "--steps", "1"});
  EXPECT_EQ(capture->Wait(), 1) << capture->Output();
  EXPECT_THAT(
      capture->Output(),
      HasSubstr("no process of job other-job on the 2 agents connected: "
                "node-a (job torchrun-job-7), node-b (job torchrun-job-7)"));
}

}  // namespace
}  // namespace profdiff::testing
