// Kineto's daemon protocol against a real KinetoDaemon on a real socket, with
// clients that speak the libkineto side as kineto's source does
// (libkineto_client.h).
#include "agent/kineto_daemon.h"

#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/process_job_id.h"
#include "tests/agent/libkineto_client.h"
#include "tests/agent/temp_dir.h"

namespace profdiff::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::LibkinetoClient;

// An endpoint name of this test process alone: abstract names are shared by
// every process on the host, parallel tests included.
std::string UniqueName() {
  static std::atomic<int> next{0};
  return "profdiff-test-dynolog-" + std::to_string(::getpid()) + "-" +
         std::to_string(next++);
}

class KinetoDaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    name_ = UniqueName();
    auto daemon =
        KinetoDaemon::Start({.name = name_,
                             .logdir = logs_.path(),
                             .settle_interval = absl::Milliseconds(20)});
    ASSERT_TRUE(daemon.ok()) << daemon.status();
    daemon_ = std::move(*daemon);
  }

  KinetoCaptureSpec Steps(const std::string& id, int steps) {
    return {.capture_id = id, .run = id, .steps = steps};
  }

  TempDir logs_;
  std::string name_;
  std::unique_ptr<KinetoDaemon> daemon_;
};

TEST_F(KinetoDaemonTest, RegistrationIsAnsweredWithTheJobsProcessesOnTheGpu) {
  LibkinetoClient a(name_), b(name_), c(name_);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a.Register(0, 1001, 77), 1);
  EXPECT_EQ(b.Register(0, 1002, 77), 2);
  EXPECT_EQ(c.Register(1, 1003, 77), 1);
  EXPECT_EQ(daemon_->Counts().registrations, 3);
  const auto processes = daemon_->Processes();
  ASSERT_EQ(processes.size(), 3u);
  EXPECT_EQ(processes[2].gpu, 1);
  EXPECT_EQ(processes[2].job, "77");
}

TEST_F(KinetoDaemonTest, PollWithoutARequestIsAnsweredWithAnEmptyConfig) {
  LibkinetoClient client(name_);
  ASSERT_TRUE(client.ok());
  // Kineto's poll asks for activities (LibkinetoConfigType::ACTIVITIES = 2)
  // with its pid and ancestors.
  EXPECT_EQ(client.Poll(2, 77, {1001, 900, 1}), "");
  EXPECT_EQ(client.Poll(2, 77, {1001, 900, 1}), "");
  EXPECT_EQ(daemon_->Counts().polls, 2);
  ASSERT_EQ(daemon_->Processes().size(), 1u);
  EXPECT_THAT(daemon_->Processes()[0].ancestors, ElementsAre(900, 1));
}

TEST_F(KinetoDaemonTest, PendingRequestIsHandedToEachPidOnceWithItsOwnFile) {
  LibkinetoClient a(name_), b(name_), other_job(name_);
  ASSERT_TRUE(a.ok() && b.ok() && other_job.ok());
  EXPECT_EQ(a.Poll(2, 77, {1001}), "");
  EXPECT_EQ(b.Poll(2, 77, {1002}), "");
  EXPECT_EQ(other_job.Poll(2, 88, {2001}), "");
  const auto arming =
      daemon_->Capture("77", Steps("cap1", 3), absl::Now() + absl::Minutes(1));
  ASSERT_TRUE(arming.ok()) << arming.status();
  EXPECT_THAT(arming->armed, ElementsAre(1001, 1002));
  const std::optional<std::string> config_a = a.Poll(2, 77, {1001});
  ASSERT_TRUE(config_a.has_value());
  EXPECT_THAT(*config_a,
              HasSubstr("ACTIVITIES_LOG_FILE=" + logs_.path() +
                        "/profdiff-captures/cap1/cap1.pt.trace.json\n"));
  EXPECT_THAT(*config_a, HasSubstr("ACTIVITIES_ITERATIONS=3\n"));
  EXPECT_THAT(b.Poll(2, 77, {1002}).value_or(""),
              HasSubstr("REQUEST_TRACE_ID=cap1\n"));
  EXPECT_EQ(a.Poll(2, 77, {1001}), "");
  EXPECT_EQ(other_job.Poll(2, 88, {2001}), "");
  EXPECT_EQ(daemon_->Counts().configs_sent, 2);
  // Kineto writes "<file>_<pid>.pt.trace.json": that is what ends a capture.
  const auto processes = daemon_->Processes();
  EXPECT_EQ(processes[0].trace_file,
            logs_.path() + "/profdiff-captures/cap1/cap1_1001.pt.trace.json");
}

TEST_F(KinetoDaemonTest, ASecondCaptureWhileOneRunsFindsTheProcessBusy) {
  LibkinetoClient client(name_);
  ASSERT_TRUE(client.ok());
  EXPECT_EQ(client.Poll(2, 77, {1001}), "");
  const absl::Time deadline = absl::Now() + absl::Minutes(1);
  ASSERT_THAT(daemon_->Capture("77", Steps("first", 2), deadline)->armed,
              ElementsAre(1001));
  ASSERT_THAT(client.Poll(2, 77, {1001}).value_or(""), HasSubstr("first"));
  const auto second = daemon_->Capture("77", Steps("second", 2), deadline);
  ASSERT_TRUE(second.ok());
  EXPECT_THAT(second->armed, IsEmpty());
  EXPECT_THAT(second->busy, ElementsAre(1001));
  // The trace is written: the capture ends and the process can be asked again.
  std::filesystem::create_directories(logs_.Join("profdiff-captures/first"));
  std::ofstream(logs_.Join("profdiff-captures/first/first_1001.pt.trace.json"))
      << "{}";
  ASSERT_TRUE(daemon_->AwaitCapturesEnded(absl::Seconds(10)));
  EXPECT_THAT(daemon_->Capture("77", Steps("third", 2), deadline)->armed,
              ElementsAre(1001));
}

TEST_F(KinetoDaemonTest, MalformedDatagramsAreRefusedWithoutDisturbingOthers) {
  LibkinetoClient bad(name_), good(name_);
  ASSERT_TRUE(bad.ok() && good.ok());
  EXPECT_EQ(good.Poll(2, 77, {1001}), "");
  ASSERT_TRUE(bad.SendRaw("not a kineto message"));
  ASSERT_TRUE(bad.Send("ctxt", "short"));
  ASSERT_TRUE(bad.Send("nope", std::string(16, '\0')));
  ASSERT_TRUE(bad.SendRaw(std::string(10000, 'x')));  // over the 4 KiB buffer
  // Nothing answers a refused datagram, as dynolog answers nothing.
  EXPECT_FALSE(bad.Receive(5, 10000).has_value());
  EXPECT_EQ(good.Register(0, 1001, 77), 1);
  ASSERT_THAT(
      daemon_->Capture("77", Steps("c", 1), absl::Now() + absl::Minutes(1))
          ->armed,
      ElementsAre(1001));
  EXPECT_THAT(good.Poll(2, 77, {1001}).value_or(""),
              HasSubstr("REQUEST_TRACE_ID=c"));
  EXPECT_EQ(daemon_->Counts().refused, 4);
  EXPECT_EQ(daemon_->Processes().size(), 1u);
}

// A real process whose environment names its torchrun job (kineto sends job
// id 0 without SLURM_JOB_ID); killed when the test ends.
class TorchrunProcess {
 public:
  TorchrunProcess() {
    char sleep[] = "sleep";
    char seconds[] = "60";
    char* argv[] = {sleep, seconds, nullptr};
    char env[] = "TORCHELASTIC_RUN_ID=torchrun-job-9";
    char* envp[] = {env, nullptr};
    if (::posix_spawnp(&pid_, "sleep", nullptr, nullptr, argv, envp) != 0) {
      pid_ = 0;
      return;
    }
    // Until the child has exec'd, /proc shows this process's environment.
    const absl::Time give_up = absl::Now() + absl::Seconds(10);
    while (JobIdOfProcess(pid_).empty() && absl::Now() < give_up) {
      ::sched_yield();
    }
  }
  ~TorchrunProcess() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = 0;
};

TEST_F(KinetoDaemonTest, JobWithoutASlurmIdIsTheProcessesTorchelasticRunId) {
  TorchrunProcess child;
  ASSERT_GT(child.pid(), 0);
  LibkinetoClient client(name_);
  ASSERT_TRUE(client.ok());
  // Registered first (no ancestors to check the pid with), then polled with
  // its parent, this test.
  EXPECT_EQ(client.Register(0, child.pid(), 0), 1);
  EXPECT_EQ(daemon_->Processes()[0].job, "0");
  EXPECT_EQ(client.Poll(2, 0, {child.pid(), ::getpid()}), "");
  ASSERT_EQ(daemon_->Processes().size(), 1u);
  EXPECT_EQ(daemon_->Processes()[0].job, "torchrun-job-9");
  EXPECT_THAT(daemon_
                  ->Capture("torchrun-job-9", Steps("t", 1),
                            absl::Now() + absl::Minutes(1))
                  ->armed,
              ElementsAre(child.pid()));
}

TEST_F(KinetoDaemonTest, APidWhoseParentIsNotTheSentAncestorIsNotLookedUp) {
  // A pid from another PID namespace can name an unrelated process here: the
  // ancestor sent with it (4242) is not that process's parent, so its
  // environment is not read.
  TorchrunProcess unrelated;
  ASSERT_GT(unrelated.pid(), 0);
  LibkinetoClient client(name_);
  ASSERT_TRUE(client.ok());
  EXPECT_EQ(client.Poll(2, 0, {unrelated.pid(), 4242}), "");
  ASSERT_EQ(daemon_->Processes().size(), 1u);
  EXPECT_EQ(daemon_->Processes()[0].job, "0");
}

TEST_F(KinetoDaemonTest, ASecondDaemonOnTheSameNameIsRefused) {
  const auto second =
      KinetoDaemon::Start({.name = name_, .logdir = logs_.path()});
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr("@" + name_));
}

TEST(KinetoDaemonSocketDirTest, KinetoIpcSocketDirMakesPathSockets) {
  TempDir logs;
  TempDir sockets;
  const std::string name = UniqueName();
  auto daemon = KinetoDaemon::Start(
      {.name = name, .socket_dir = sockets.path(), .logdir = logs.path()});
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  EXPECT_TRUE(std::filesystem::exists(sockets.Join(name)));
  LibkinetoClient client(name, sockets.path());
  ASSERT_TRUE(client.ok());
  EXPECT_EQ(client.Register(0, 1001, 5), 1);
  (*daemon)->Stop();
  daemon->reset();
  EXPECT_FALSE(std::filesystem::exists(sockets.Join(name)));
}

}  // namespace
}  // namespace profdiff::agent
