// Kineto's daemon protocol against a real KinetoDaemon on a real socket, with
// real client processes that speak the libkineto side as kineto's source does
// (kineto_client_process.h, libkineto_client.h): the daemon believes the
// kernel about who sends a message, so each process is a process.
#include "agent/kineto_daemon.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "agent/armed_captures.h"
#include "tests/agent/kineto_client_process.h"
#include "tests/agent/libkineto_client.h"
#include "tests/support/test_dir.h"

namespace profdiff::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::KinetoClientOptions;
using testing::KinetoClientProcess;
using testing::LibkinetoClient;
using ::testing::MatchesRegex;

constexpr uid_t kNobody = 65534;

// An endpoint name of this test process alone: abstract names are shared by
// every process on the host, parallel tests included.
std::string UniqueName() {
  static std::atomic<int> next{0};
  return "profdiff-test-dynolog-" + std::to_string(::getpid()) + "-" +
         std::to_string(next++);
}

// The ACTIVITIES_LOG_FILE line of a config.
std::string LogFileOf(const std::string& config) {
  const std::string key = "ACTIVITIES_LOG_FILE=";
  const size_t at = config.find(key);
  if (at == std::string::npos) return "";
  const size_t end = config.find('\n', at);
  return config.substr(at + key.size(), end - at - key.size());
}

class KinetoDaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto armed = ArmedCaptures::Open(state_.path(), absl::Now());
    ASSERT_TRUE(armed.ok()) << armed.status();
    armed_ = *std::move(armed);
    name_ = UniqueName();
    StartDaemon();
  }

  // On name_: a restarted daemon is found by the processes of the last one.
  void StartDaemon() {
    auto daemon =
        KinetoDaemon::Start({.name = name_,
                             .logdir = logs_.path(),
                             .settle_interval = absl::Milliseconds(20),
                             .armed = armed_.get()});
    ASSERT_TRUE(daemon.ok()) << daemon.status();
    daemon_ = std::move(*daemon);
  }

  KinetoCaptureSpec Steps(const std::string& id, int steps) {
    return {.capture_id = id, .run = id, .steps = steps};
  }

  std::unique_ptr<KinetoClientProcess> Client(
      const KinetoClientOptions& options = {}) {
    auto client = std::make_unique<KinetoClientProcess>(name_, options);
    EXPECT_TRUE(client->ok()) << client->Output();
    return client;
  }

  test_support::TempDir logs_;
  test_support::TempDir state_;
  std::unique_ptr<ArmedCaptures> armed_;
  std::string name_;
  std::unique_ptr<KinetoDaemon> daemon_;
};

TEST_F(KinetoDaemonTest, RegistrationIsAnsweredWithTheJobsProcessesOnTheGpu) {
  auto a = Client(), b = Client(), c = Client();
  EXPECT_EQ(a->Register(0, 77), 1);
  EXPECT_EQ(b->Register(0, 77), 2);
  EXPECT_EQ(c->Register(1, 77), 1);
  EXPECT_EQ(daemon_->Counts().registrations, 3);
  const auto processes = daemon_->Processes();
  ASSERT_EQ(processes.size(), 3u);
  for (const KinetoProcess& process : processes) {
    EXPECT_EQ(process.job, "77");
    EXPECT_EQ(process.uid, ::getuid());
    EXPECT_EQ(process.pid, process.host_pid);
  }
}

TEST_F(KinetoDaemonTest, PollWithoutARequestIsAnsweredWithAnEmptyConfig) {
  auto client = Client();
  // Kineto's poll asks for activities (LibkinetoConfigType::ACTIVITIES = 2)
  // with its pid and ancestors.
  EXPECT_EQ(client->Poll(2, 77), "");
  EXPECT_EQ(client->Poll(2, 77), "");
  EXPECT_EQ(daemon_->Counts().polls, 2);
  ASSERT_EQ(daemon_->Processes().size(), 1u);
  EXPECT_THAT(daemon_->Processes()[0].ancestors, ElementsAre(::getpid()));
}

TEST_F(KinetoDaemonTest, EachArmedProcessWritesInAFolderOfItsOwn) {
  auto a = Client(), b = Client(), other_job = Client();
  EXPECT_EQ(a->Poll(2, 77), "");
  EXPECT_EQ(b->Poll(2, 77), "");
  EXPECT_EQ(other_job->Poll(2, 88), "");
  const auto arming =
      daemon_->Capture("77", Steps("cap1", 3), absl::Now() + absl::Minutes(1));
  ASSERT_TRUE(arming.ok()) << arming.status();
  EXPECT_THAT(arming->arming.armed, ElementsAre(a->pid(), b->pid()));
  ASSERT_EQ(arming->processes.size(), 2u);
  const std::optional<std::string> config_a = a->Poll(2, 77);
  ASSERT_TRUE(config_a.has_value());
  // LOGDIR/profdiff-captures/cap1/<host pid>-<16 random hex>/cap1.pt...
  const std::string file_a = LogFileOf(*config_a);
  EXPECT_THAT(file_a, MatchesRegex(logs_.path() + "/profdiff-captures/cap1/" +
                                   std::to_string(a->pid()) +
                                   "-[0-9a-f]{16}/cap1\\.pt\\.trace\\.json"));
  EXPECT_THAT(*config_a, HasSubstr("ACTIVITIES_ITERATIONS=3\n"));
  const std::optional<std::string> config_b = b->Poll(2, 77);
  EXPECT_THAT(config_b.value_or(""), HasSubstr("REQUEST_TRACE_ID=cap1\n"));
  EXPECT_NE(
      std::filesystem::path(file_a).parent_path(),
      std::filesystem::path(LogFileOf(config_b.value_or(""))).parent_path());
  EXPECT_EQ(a->Poll(2, 77), "");
  EXPECT_EQ(other_job->Poll(2, 88), "");
  EXPECT_EQ(daemon_->Counts().configs_sent, 2);
  // Kineto writes "<file>_<pid>.pt.trace.json": that is what ends a capture,
  // and what ArmedCaptures will admit.
  const std::string expected =
      std::filesystem::path(file_a).parent_path().string() + "/cap1_" +
      std::to_string(a->pid()) + ".pt.trace.json";
  EXPECT_EQ(arming->processes[0].trace_file(), expected);
  EXPECT_EQ(arming->processes[0].uid(), ::getuid());
  // The shared folders are the agent's, listable by nobody else.
  struct stat info;
  ASSERT_EQ(::stat(logs_.Join("profdiff-captures/cap1").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0711u);
  ASSERT_EQ(::stat(logs_.Join("profdiff-captures").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0711u);
}

TEST_F(KinetoDaemonTest, ASecondCaptureWhileOneRunsFindsTheProcessBusy) {
  auto client = Client();
  EXPECT_EQ(client->Poll(2, 77), "");
  const absl::Time deadline = absl::Now() + absl::Minutes(1);
  ASSERT_THAT(daemon_->Capture("77", Steps("first", 2), deadline)->arming.armed,
              ElementsAre(client->pid()));
  const std::string config = client->Poll(2, 77).value_or("");
  ASSERT_THAT(config, HasSubstr("first"));
  const auto second = daemon_->Capture("77", Steps("second", 2), deadline);
  ASSERT_TRUE(second.ok());
  EXPECT_THAT(second->arming.armed, IsEmpty());
  EXPECT_THAT(second->arming.busy, ElementsAre(client->pid()));
  // The trace is written: the capture ends and the process can be asked again.
  std::string file = LogFileOf(config);
  file.insert(file.find(".pt.trace.json"), "_" + std::to_string(client->pid()));
  std::ofstream(file) << "{}";
  ASSERT_TRUE(daemon_->AwaitCapturesEnded(absl::Seconds(10)));
  EXPECT_THAT(daemon_->Capture("77", Steps("third", 2), deadline)->arming.armed,
              ElementsAre(client->pid()));
}

TEST_F(KinetoDaemonTest, MalformedDatagramsAreRefusedWithoutDisturbingOthers) {
  LibkinetoClient bad(name_);
  ASSERT_TRUE(bad.ok());
  auto good = Client();
  EXPECT_EQ(good->Poll(2, 77), "");
  ASSERT_TRUE(bad.SendRaw("not a kineto message"));
  ASSERT_TRUE(bad.Send("ctxt", "short"));
  ASSERT_TRUE(bad.Send("nope", std::string(16, '\0')));
  ASSERT_TRUE(bad.SendRaw(std::string(10000, 'x')));  // over the 4 KiB buffer
  // Nothing answers a refused datagram, as dynolog answers nothing.
  EXPECT_FALSE(bad.Receive(5, 10000).has_value());
  EXPECT_EQ(good->Register(0, 77), 1);
  ASSERT_THAT(
      daemon_->Capture("77", Steps("c", 1), absl::Now() + absl::Minutes(1))
          ->arming.armed,
      ElementsAre(good->pid()));
  EXPECT_THAT(good->Poll(2, 77).value_or(""), HasSubstr("REQUEST_TRACE_ID=c"));
  EXPECT_EQ(daemon_->Counts().refused, 4);
  EXPECT_EQ(daemon_->Processes().size(), 1u);
}

TEST_F(KinetoDaemonTest, JobWithoutASlurmIdIsTheProcessesTorchelasticRunId) {
  auto client = Client({.env = {"TORCHELASTIC_RUN_ID=torchrun-job-9"}});
  // Kineto sends job id 0 without SLURM_JOB_ID: the environment of the
  // process the kernel names is read.
  EXPECT_EQ(client->Register(0, 0), 1);
  ASSERT_EQ(daemon_->Processes().size(), 1u);
  EXPECT_EQ(daemon_->Processes()[0].job, "torchrun-job-9");
  EXPECT_THAT(daemon_
                  ->Capture("torchrun-job-9", Steps("t", 1),
                            absl::Now() + absl::Minutes(1))
                  ->arming.armed,
              ElementsAre(client->pid()));
}

// Regression for #42: a pid in a message is the sender's word; a process
// speaking for another (here: for its own parent, this test) is refused,
// learns nothing and takes nothing.
TEST_F(KinetoDaemonTest, AMessageForAnotherProcessesPidIsRefused) {
  auto victim = Client({.env = {"TORCHELASTIC_RUN_ID=victim-job"}});
  EXPECT_EQ(victim->Poll(2, 0), "");
  ASSERT_THAT(
      daemon_
          ->Capture("victim-job", Steps("v", 1), absl::Now() + absl::Minutes(1))
          ->arming.armed,
      ElementsAre(victim->pid()));
  auto impostor = Client();
  EXPECT_EQ(impostor->Register(0, 0, victim->pid()), std::nullopt);
  EXPECT_EQ(impostor->Poll(2, 0, {victim->pid()}), std::nullopt);
  EXPECT_EQ(impostor->Poll(2, 0, {::getpid()}), std::nullopt);
  EXPECT_EQ(daemon_->Counts().impostors, 3);
  // The victim still gets its config, once.
  EXPECT_THAT(victim->Poll(2, 0).value_or(""), HasSubstr("REQUEST_TRACE_ID=v"));
  ASSERT_EQ(daemon_->Processes().size(), 1u);
  EXPECT_EQ(daemon_->Processes()[0].host_pid, victim->pid());
}

// Regression for #42: another user cannot register under a rank's pid, take
// its config, nor learn its job id.
TEST_F(KinetoDaemonTest, AnotherUserCannotSpeakForARank) {
  if (!KinetoClientProcess::CanRunAsAnotherUser()) {
    GTEST_SKIP() << "needs root and /usr/bin/setpriv to run a client as "
                    "another user";
  }
  auto rank = Client({.env = {"TORCHELASTIC_RUN_ID=secret-job"}});
  EXPECT_EQ(rank->Register(0, 0), 1);
  ASSERT_THAT(
      daemon_
          ->Capture("secret-job", Steps("s", 1), absl::Now() + absl::Minutes(1))
          ->arming.armed,
      ElementsAre(rank->pid()));
  auto other = Client({.uid = kNobody});
  EXPECT_EQ(other->Register(0, 0, rank->pid()), std::nullopt);
  EXPECT_EQ(other->Poll(2, 0, {rank->pid(), 1}), std::nullopt);
  // Speaking for itself it is served, as job "0": its own environment.
  EXPECT_EQ(other->Poll(2, 0), "");
  const auto processes = daemon_->Processes();
  ASSERT_EQ(processes.size(), 2u);
  for (const KinetoProcess& process : processes) {
    if (process.host_pid == other->pid()) {
      EXPECT_EQ(process.uid, kNobody);
      EXPECT_EQ(process.job, "0");
    }
  }
  EXPECT_THAT(rank->Poll(2, 0).value_or(""), HasSubstr("REQUEST_TRACE_ID=s"));
}

// Regression for #42: 120 kB job ids from the environment are not ids; the
// process is job "0" and the refusal is counted.
TEST_F(KinetoDaemonTest, AJobIdThatIsNotAnIdIsIgnored) {
  auto client =
      Client({.env = {"TORCHELASTIC_RUN_ID=" + std::string(120'000, 'j')}});
  EXPECT_EQ(client->Register(0, 0), 1);
  ASSERT_EQ(daemon_->Processes().size(), 1u);
  EXPECT_EQ(daemon_->Processes()[0].job, "0");
  EXPECT_EQ(daemon_->Counts().invalid_jobs, 1);
}

// Regression for #42: pid 0 and negative pids are no process.
TEST_F(KinetoDaemonTest, PidsBelowOneAreRefused) {
  LibkinetoClient client(name_);
  ASSERT_TRUE(client.ok());
  EXPECT_EQ(client.Register(0, 0, 5), std::nullopt);
  EXPECT_EQ(client.Poll(2, 5, {-7}), std::nullopt);
  EXPECT_EQ(daemon_->Counts().impostors, 2);
  EXPECT_THAT(daemon_->Processes(), IsEmpty());
}

// Regression for #42: a restarted daemon does not hand a process a config
// of the capture it took one of before the restart.
TEST_F(KinetoDaemonTest, ARestartedDaemonDoesNotArmAProcessTwice) {
  auto client = Client();
  EXPECT_EQ(client->Poll(2, 77), "");
  auto arming =
      daemon_->Capture("77", Steps("once", 2), absl::Now() + absl::Minutes(1));
  ASSERT_TRUE(arming.ok());
  v1::ArmedCapture kept;
  kept.set_capture_id("once");
  kept.set_run("once");
  kept.set_deadline_unix_ms(absl::ToUnixMillis(absl::Now() + absl::Minutes(1)));
  for (const v1::ArmedProcess& process : arming->processes) {
    *kept.add_processes() = process;
  }
  ASSERT_TRUE(armed_->Record(kept).ok());
  EXPECT_THAT(client->Poll(2, 77).value_or(""),
              HasSubstr("REQUEST_TRACE_ID=once"));
  // Taking the config was kept before the answer left.
  daemon_->Stop();
  daemon_.reset();
  auto reopened = ArmedCaptures::Open(state_.path(), absl::Now());
  ASSERT_TRUE(reopened.ok());
  armed_ = *std::move(reopened);
  ASSERT_EQ(armed_->Running(absl::Now()).size(), 1u);
  EXPECT_EQ(armed_->Running(absl::Now())[0].processes(0).config(), "");
  StartDaemon();
  // The process that took it polls the new daemon: nothing more, and it is
  // still capturing, so another capture finds it busy.
  EXPECT_EQ(client->Poll(2, 77), "");
  const auto busy =
      daemon_->Capture("77", Steps("twice", 2), absl::Now() + absl::Minutes(1));
  ASSERT_TRUE(busy.ok());
  EXPECT_THAT(busy->arming.armed, IsEmpty());
  EXPECT_THAT(busy->arming.busy, ElementsAre(client->pid()));
}

TEST_F(KinetoDaemonTest, ACancelledCaptureHandsOutNothingMore) {
  auto a = Client(), b = Client();
  EXPECT_EQ(a->Poll(2, 77), "");
  EXPECT_EQ(b->Poll(2, 77), "");
  ASSERT_TRUE(
      daemon_->Capture("77", Steps("c", 1), absl::Now() + absl::Minutes(1))
          .ok());
  EXPECT_THAT(a->Poll(2, 77).value_or(""), HasSubstr("REQUEST_TRACE_ID=c"));
  // b had not taken its config: it gets none and is free; a holds its
  // request in kineto, so a new capture finds it busy and says why.
  EXPECT_THAT(daemon_->Cancel("c"), ElementsAre(b->pid()));
  EXPECT_EQ(b->Poll(2, 77), "");
  const auto next =
      daemon_->Capture("77", Steps("d", 1), absl::Now() + absl::Minutes(1));
  ASSERT_TRUE(next.ok());
  EXPECT_THAT(next->arming.armed, ElementsAre(b->pid()));
  EXPECT_THAT(next->arming.busy, ElementsAre(a->pid()));
  ASSERT_EQ(next->arming.errors.size(), 1u);
  EXPECT_THAT(next->arming.errors[0],
              HasSubstr("took capture c's config before it was cancelled"));
}

TEST_F(KinetoDaemonTest, ASecondDaemonOnTheSameNameIsRefused) {
  const auto second = KinetoDaemon::Start(
      {.name = name_, .logdir = logs_.path(), .armed = armed_.get()});
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(second.status().message(), HasSubstr("@" + name_));
}

TEST_F(KinetoDaemonTest, ARelativeLogDirIsRefused) {
  const auto relative = KinetoDaemon::Start(
      {.name = UniqueName(), .logdir = "logs", .armed = armed_.get()});
  EXPECT_EQ(relative.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(relative.status().message(), HasSubstr("absolute"));
}

TEST(KinetoDaemonSocketDirTest, KinetoIpcSocketDirMakesPathSockets) {
  test_support::TempDir logs;
  test_support::TempDir sockets;
  test_support::TempDir state;
  auto armed = ArmedCaptures::Open(state.path(), absl::Now());
  ASSERT_TRUE(armed.ok());
  const std::string name = UniqueName();
  auto daemon = KinetoDaemon::Start({.name = name,
                                     .socket_dir = sockets.path(),
                                     .logdir = logs.path(),
                                     .armed = armed->get()});
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  EXPECT_TRUE(std::filesystem::exists(sockets.Join(name)));
  KinetoClientProcess client(name, {.socket_dir = sockets.path()});
  ASSERT_TRUE(client.ok());
  EXPECT_EQ(client.Register(0, 5), 1);
  (*daemon)->Stop();
  daemon->reset();
  EXPECT_FALSE(std::filesystem::exists(sockets.Join(name)));
}

}  // namespace
}  // namespace profdiff::agent
