#include "agent/kineto_process_registry.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

// A sender whose pid the kernel vouched for: the same pid in both views,
// uid 1000, unless said otherwise.
KinetoSender Sender(int32_t pid, std::string job = "5", uint32_t uid = 1000) {
  return {.process = {.host_pid = pid, .pid = pid, .uid = uid},
          .job = std::move(job)};
}

KinetoProcessCapture CaptureFor(int32_t pid, const std::string& id,
                                absl::Time deadline) {
  return {.capture_id = id,
          .config = "config for " + std::to_string(pid),
          .trace_file = "/logs/r/" + id + "_" + std::to_string(pid) + ".json",
          .deadline = deadline};
}

// Arms every process Select names for `job`; returns the armed host pids.
std::vector<int32_t> ArmAll(KinetoProcessRegistry& registry,
                            const std::string& job, const std::string& id,
                            absl::Time deadline) {
  std::vector<int32_t> armed;
  for (const int32_t pid : registry.Select(job).armed) {
    if (registry.Arm(pid, CaptureFor(pid, id, deadline))) armed.push_back(pid);
  }
  return armed;
}

std::string PollConfig(KinetoProcessRegistry& registry, int32_t pid,
                       int32_t type = kKinetoActivitiesConfig) {
  absl::StatusOr<KinetoProcessRegistry::PollAnswer> answer =
      registry.Poll(Sender(pid), type, {}, kStart);
  EXPECT_TRUE(answer.ok()) << answer.status();
  return answer.ok() ? answer->config : "";
}

TEST(KinetoProcessRegistryTest, RegistrationCountsTheJobsProcessesOnItsGpu) {
  KinetoProcessRegistry registry;
  EXPECT_EQ(*registry.Register(Sender(10, "5"), 0, kStart), 1);
  EXPECT_EQ(*registry.Register(Sender(11, "5"), 0, kStart), 2);
  EXPECT_EQ(*registry.Register(Sender(12, "5"), 1, kStart), 1);
  EXPECT_EQ(*registry.Register(Sender(13, "6"), 0, kStart), 1);
  // Registering again is the same process; moving to gpu 1 leaves gpu 0.
  EXPECT_EQ(*registry.Register(Sender(10, "5"), 0, kStart), 2);
  EXPECT_EQ(*registry.Register(Sender(10, "5"), 1, kStart), 2);
  EXPECT_EQ(*registry.Register(Sender(11, "5"), 0, kStart), 1);
}

TEST(KinetoProcessRegistryTest, JobIsTheSendersElseTheOneKnownElseZero) {
  KinetoProcessRegistry registry;
  ASSERT_TRUE(registry.Poll(Sender(1, "42"), 2, {}, kStart).ok());
  ASSERT_TRUE(registry.Poll(Sender(2, "torchrun-7"), 2, {1}, kStart).ok());
  ASSERT_TRUE(registry.Poll(Sender(3, ""), 2, {}, kStart).ok());
  // A later message without a job keeps the job known.
  ASSERT_TRUE(registry.Poll(Sender(1, ""), 2, {}, kStart).ok());
  const auto processes = registry.Processes();
  ASSERT_EQ(processes.size(), 3u);
  EXPECT_EQ(processes[0].job, "42");
  EXPECT_EQ(processes[1].job, "torchrun-7");
  EXPECT_THAT(processes[1].ancestors, ElementsAre(1));
  EXPECT_EQ(processes[2].job, "0");
}

// Regression for #42: two containers' processes that both call themselves
// pid 7 are two processes, keyed by the pid the agent sees.
TEST(KinetoProcessRegistryTest, ProcessesAreKeyedByTheAgentsViewOfTheirPid) {
  KinetoProcessRegistry registry;
  ASSERT_TRUE(registry
                  .Poll({.process = {.host_pid = 5001, .pid = 7, .uid = 1000},
                         .job = "a"},
                        2, {}, kStart)
                  .ok());
  ASSERT_TRUE(registry
                  .Poll({.process = {.host_pid = 6001, .pid = 7, .uid = 1001},
                         .job = "b"},
                        2, {}, kStart)
                  .ok());
  const auto processes = registry.Processes();
  ASSERT_EQ(processes.size(), 2u);
  EXPECT_EQ(processes[0].host_pid, 5001);
  EXPECT_EQ(processes[0].pid, 7);
  EXPECT_EQ(processes[1].uid, 1001u);
  EXPECT_EQ(processes[1].job, "b");
}

// Regression for #42: one user's thousands of processes are refused past the
// per-user bound, and others still register.
TEST(KinetoProcessRegistryTest, OneUsersProcessesStopAtThePerUserBound) {
  KinetoProcessRegistry registry;
  for (int32_t pid = 1; pid <= kMaxKinetoProcessesPerUser; ++pid) {
    ASSERT_TRUE(registry.Register(Sender(pid, "5", 1000), 0, kStart).ok());
  }
  const absl::StatusOr<int32_t> refused = registry.Register(
      Sender(kMaxKinetoProcessesPerUser + 1, "5", 1000), 0, kStart);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(), HasSubstr("uid 1000 has 1024"));
  // Known processes go on; another user is unaffected.
  EXPECT_TRUE(registry.Poll(Sender(1, "5", 1000), 2, {}, kStart).ok());
  EXPECT_TRUE(registry.Register(Sender(900000, "6", 1001), 0, kStart).ok());
  EXPECT_EQ(registry.size(), kMaxKinetoProcessesPerUser + 1);
}

TEST(KinetoProcessRegistryTest, TheRegistryStopsAtItsBound) {
  KinetoProcessRegistry registry;
  for (int32_t pid = 1; pid <= kMaxKinetoProcesses; ++pid) {
    // Users of at most kMaxKinetoProcessesPerUser processes each.
    const uint32_t uid = 1000 + pid / kMaxKinetoProcessesPerUser;
    ASSERT_TRUE(registry.Register(Sender(pid, "5", uid), 0, kStart).ok());
  }
  const absl::StatusOr<int32_t> refused =
      registry.Register(Sender(kMaxKinetoProcesses + 1, "5", 7), 0, kStart);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("4096 Kineto processes are registered"));
  // Forgetting silent ones makes room again.
  EXPECT_EQ(registry.ForgetIdle(kStart + absl::Minutes(2)).size(),
            static_cast<size_t>(kMaxKinetoProcesses));
  EXPECT_TRUE(
      registry.Register(Sender(kMaxKinetoProcesses + 1, "5", 7), 0, kStart)
          .ok());
}

TEST(KinetoProcessRegistryTest, APidReusedByAnotherUserIsANewProcess) {
  KinetoProcessRegistry registry;
  ASSERT_TRUE(registry.Poll(Sender(10, "5", 1000), 2, {}, kStart).ok());
  ASSERT_THAT(ArmAll(registry, "5", "a", kStart + absl::Minutes(1)),
              ElementsAre(10));
  // Pid 10 now belongs to uid 2000: it is not the armed process.
  absl::StatusOr<KinetoProcessRegistry::PollAnswer> answer =
      registry.Poll(Sender(10, "9", 2000), 2, {}, kStart);
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->config, "");
  ASSERT_EQ(registry.Processes().size(), 1u);
  EXPECT_FALSE(registry.Processes()[0].capturing());
  EXPECT_EQ(registry.Processes()[0].job, "9");
}

TEST(KinetoProcessRegistryTest, AnArmedConfigIsTakenOnceByAnActivitiesPoll) {
  KinetoProcessRegistry registry;
  EXPECT_EQ(PollConfig(registry, 10), "");
  EXPECT_THAT(ArmAll(registry, "5", "cap1", kStart + absl::Minutes(1)),
              ElementsAre(10));
  // A poll for events only does not take it.
  EXPECT_EQ(PollConfig(registry, 10, /*type=*/1), "");
  absl::StatusOr<KinetoProcessRegistry::PollAnswer> taken =
      registry.Poll(Sender(10), 2, {}, kStart);
  ASSERT_TRUE(taken.ok());
  EXPECT_EQ(taken->config, "config for 10");
  EXPECT_EQ(taken->capture_id, "cap1");
  EXPECT_EQ(PollConfig(registry, 10), "");
  EXPECT_TRUE(registry.Processes()[0].capturing());
}

TEST(KinetoProcessRegistryTest,
     OnlyTheJobsProcessesAreSelectedAndBusyOnesAreLeft) {
  KinetoProcessRegistry registry;
  for (int32_t pid : {10, 11, 12}) {
    ASSERT_TRUE(registry.Poll(Sender(pid, "5"), 2, {}, kStart).ok());
  }
  ASSERT_TRUE(registry.Poll(Sender(20, "6"), 2, {}, kStart).ok());
  EXPECT_THAT(ArmAll(registry, "5", "a", kStart + absl::Minutes(1)),
              ElementsAre(10, 11, 12));
  const CaptureArming again = registry.Select("");
  EXPECT_THAT(again.armed, ElementsAre(20));
  EXPECT_THAT(again.busy, ElementsAre(10, 11, 12));
  EXPECT_FALSE(registry.Arm(10, CaptureFor(10, "b", kStart)));  // busy
  EXPECT_FALSE(registry.Arm(99, CaptureFor(99, "b", kStart)));  // unknown
  EXPECT_THAT(registry.Select("7").armed, IsEmpty());
}

TEST(KinetoProcessRegistryTest,
     ACaptureEndsWhenItsTraceIsWrittenOrAtItsDeadline) {
  KinetoProcessRegistry registry;
  ASSERT_TRUE(registry.Poll(Sender(10), 2, {}, kStart).ok());
  ASSERT_TRUE(registry.Poll(Sender(11), 2, {}, kStart).ok());
  ArmAll(registry, "5", "a", kStart + absl::Minutes(1));
  const auto all_written = [](const std::string&) { return true; };
  // Not taken yet: a file of that name is not this capture's.
  EXPECT_THAT(registry.SettleCaptures(kStart, all_written), IsEmpty());
  PollConfig(registry, 10);
  PollConfig(registry, 11);
  EXPECT_THAT(registry.SettleCaptures(kStart,
                                      [](const std::string& file) {
                                        return file == "/logs/r/a_10.json";
                                      }),
              ElementsAre(10));
  const auto none_written = [](const std::string&) { return false; };
  EXPECT_THAT(registry.SettleCaptures(kStart + absl::Seconds(59), none_written),
              IsEmpty());
  EXPECT_THAT(registry.SettleCaptures(kStart + absl::Minutes(1), none_written),
              ElementsAre(11));
  EXPECT_THAT(ArmAll(registry, "5", "b", kStart + absl::Minutes(2)),
              ElementsAre(10, 11));
}

// Regression for #42: a restarted agent restores what it armed; a process
// that took its config gets none again, one that had not gets it.
TEST(KinetoProcessRegistryTest, ARestoredCaptureIsNotHandedOutTwice) {
  KinetoProcessRegistry registry;
  const absl::Time deadline = kStart + absl::Minutes(1);
  KinetoProcessCapture taken = CaptureFor(10, "a", deadline);
  taken.config.clear();
  registry.Restore({.host_pid = 10, .pid = 10, .uid = 1000}, taken, kStart);
  registry.Restore({.host_pid = 11, .pid = 11, .uid = 1000},
                   CaptureFor(11, "a", deadline), kStart);
  EXPECT_EQ(PollConfig(registry, 10), "");
  EXPECT_EQ(PollConfig(registry, 11), "config for 11");
  const CaptureArming selected = registry.Select("5");
  EXPECT_THAT(selected.busy, ElementsAre(10, 11));
}

// A config not taken is never handed out; a process that took one stays
// busy, since kineto keeps a request it took until it runs.
TEST(KinetoProcessRegistryTest, ACancelledConfigIsNeverHandedOut) {
  KinetoProcessRegistry registry;
  ASSERT_TRUE(registry.Poll(Sender(10), 2, {}, kStart).ok());
  ASSERT_TRUE(registry.Poll(Sender(11), 2, {}, kStart).ok());
  ArmAll(registry, "5", "a", kStart + absl::Minutes(1));
  PollConfig(registry, 10);  // taken before the cancel
  EXPECT_THAT(registry.Cancel("a"), ElementsAre(11));
  EXPECT_EQ(PollConfig(registry, 11), "");
  EXPECT_THAT(registry.Select("5").busy, ElementsAre(10));
  EXPECT_THAT(registry.Select("5").armed, ElementsAre(11));
  EXPECT_TRUE(registry.Processes()[0].capture.cancelled);
  // Its trace written (the request ran), it is free again.
  registry.SettleCaptures(kStart, [](const std::string&) { return true; });
  EXPECT_FALSE(registry.AnyCapturing());
}

TEST(KinetoProcessRegistryTest, SilentProcessesAreForgottenAfterAMinute) {
  KinetoProcessRegistry registry;
  ASSERT_TRUE(registry.Poll(Sender(10), 2, {}, kStart).ok());
  ASSERT_TRUE(
      registry.Poll(Sender(11), 2, {}, kStart + absl::Seconds(30)).ok());
  EXPECT_THAT(registry.ForgetIdle(kStart + absl::Seconds(61)), ElementsAre(10));
  ASSERT_EQ(registry.Processes().size(), 1u);
  EXPECT_EQ(registry.Processes()[0].pid, 11);
}

TEST(KinetoProcessRegistryTest, ACapturingProcessIsNotForgottenWhileItRuns) {
  KinetoProcessRegistry registry;
  ASSERT_TRUE(registry.Poll(Sender(10), 2, {}, kStart).ok());
  ArmAll(registry, "5", "a", kStart + absl::Minutes(5));
  EXPECT_THAT(registry.ForgetIdle(kStart + absl::Minutes(2)), IsEmpty());
  registry.SettleCaptures(kStart + absl::Minutes(5),
                          [](const std::string&) { return false; });
  EXPECT_THAT(registry.ForgetIdle(kStart + absl::Minutes(5)), ElementsAre(10));
}

}  // namespace
}  // namespace profdiff::agent
