#include "agent/kineto_process_registry.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

KinetoCaptureConfig ConfigFor(const KinetoProcess& process) {
  return {.config = "config for " + std::to_string(process.pid),
          .trace_file = "/logs/r/c_" + std::to_string(process.pid) + ".json"};
}

TEST(KinetoProcessRegistryTest, RegistrationCountsTheJobsProcessesOnItsGpu) {
  KinetoProcessRegistry registry;
  EXPECT_EQ(registry.Register({.gpu = 0, .pid = 10, .job_id = 5}, "", kStart),
            1);
  EXPECT_EQ(registry.Register({.gpu = 0, .pid = 11, .job_id = 5}, "", kStart),
            2);
  EXPECT_EQ(registry.Register({.gpu = 1, .pid = 12, .job_id = 5}, "", kStart),
            1);
  EXPECT_EQ(registry.Register({.gpu = 0, .pid = 13, .job_id = 6}, "", kStart),
            1);
  // Registering again is the same process.
  EXPECT_EQ(registry.Register({.gpu = 0, .pid = 10, .job_id = 5}, "", kStart),
            2);
}

TEST(KinetoProcessRegistryTest, JobIsTheSentIdElseTheEnvironmentsElseZero) {
  KinetoProcessRegistry registry;
  registry.Poll({.config_type = 2, .job_id = 42, .pids = {1}}, "ignored",
                kStart);
  registry.Poll({.config_type = 2, .job_id = 0, .pids = {2, 1}}, "torchrun-7",
                kStart);
  registry.Poll({.config_type = 2, .job_id = 0, .pids = {3}}, "", kStart);
  const auto processes = registry.Processes();
  ASSERT_EQ(processes.size(), 3u);
  EXPECT_EQ(processes[0].job, "42");
  EXPECT_EQ(processes[1].job, "torchrun-7");
  EXPECT_THAT(processes[1].ancestors, ElementsAre(1));
  EXPECT_EQ(processes[2].job, "0");
}

TEST(KinetoProcessRegistryTest, AnArmedConfigIsTakenOnceByAnActivitiesPoll) {
  KinetoProcessRegistry registry;
  const KinetoPoll poll{.config_type = 2, .job_id = 5, .pids = {10}};
  EXPECT_EQ(registry.Poll(poll, "", kStart), "");
  const CaptureArming arming =
      registry.Arm("5", "cap1", kStart + absl::Minutes(1), ConfigFor);
  EXPECT_THAT(arming.armed, ElementsAre(10));
  // A poll for events only does not take it.
  EXPECT_EQ(
      registry.Poll({.config_type = 1, .job_id = 5, .pids = {10}}, "", kStart),
      "");
  EXPECT_EQ(registry.Poll(poll, "", kStart), "config for 10");
  EXPECT_EQ(registry.Poll(poll, "", kStart), "");
  EXPECT_TRUE(registry.Processes()[0].capturing());
}

TEST(KinetoProcessRegistryTest,
     OnlyTheJobsProcessesAreArmedAndBusyOnesAreLeft) {
  KinetoProcessRegistry registry;
  for (int32_t pid : {10, 11, 12}) {
    registry.Poll({.config_type = 2, .job_id = 5, .pids = {pid}}, "", kStart);
  }
  registry.Poll({.config_type = 2, .job_id = 6, .pids = {20}}, "", kStart);
  EXPECT_THAT(
      registry.Arm("5", "a", kStart + absl::Minutes(1), ConfigFor).armed,
      ElementsAre(10, 11, 12));
  const CaptureArming again =
      registry.Arm("", "b", kStart + absl::Minutes(1), ConfigFor);
  EXPECT_THAT(again.armed, ElementsAre(20));
  EXPECT_THAT(again.busy, ElementsAre(10, 11, 12));
  EXPECT_THAT(registry.Arm("7", "c", kStart, ConfigFor).armed, IsEmpty());
}

TEST(KinetoProcessRegistryTest,
     ACaptureEndsWhenItsTraceIsWrittenOrAtItsDeadline) {
  KinetoProcessRegistry registry;
  const KinetoPoll p10{.config_type = 2, .job_id = 5, .pids = {10}};
  const KinetoPoll p11{.config_type = 2, .job_id = 5, .pids = {11}};
  registry.Poll(p10, "", kStart);
  registry.Poll(p11, "", kStart);
  registry.Arm("5", "a", kStart + absl::Minutes(1), ConfigFor);
  const auto all_written = [](const std::string&) { return true; };
  // Not taken yet: a file of that name is not this capture's.
  EXPECT_THAT(registry.SettleCaptures(kStart, all_written), IsEmpty());
  registry.Poll(p10, "", kStart);
  registry.Poll(p11, "", kStart);
  EXPECT_THAT(registry.SettleCaptures(kStart,
                                      [](const std::string& file) {
                                        return file == "/logs/r/c_10.json";
                                      }),
              ElementsAre(10));
  const auto none_written = [](const std::string&) { return false; };
  EXPECT_THAT(registry.SettleCaptures(kStart + absl::Seconds(59), none_written),
              IsEmpty());
  EXPECT_THAT(registry.SettleCaptures(kStart + absl::Minutes(1), none_written),
              ElementsAre(11));
  EXPECT_THAT(
      registry.Arm("5", "b", kStart + absl::Minutes(2), ConfigFor).armed,
      ElementsAre(10, 11));
}

TEST(KinetoProcessRegistryTest, SilentProcessesAreForgottenAfterAMinute) {
  KinetoProcessRegistry registry;
  registry.Poll({.config_type = 2, .job_id = 5, .pids = {10}}, "", kStart);
  registry.Poll({.config_type = 2, .job_id = 5, .pids = {11}}, "",
                kStart + absl::Seconds(30));
  EXPECT_THAT(registry.ForgetIdle(kStart + absl::Seconds(61)), ElementsAre(10));
  ASSERT_EQ(registry.Processes().size(), 1u);
  EXPECT_EQ(registry.Processes()[0].pid, 11);
}

}  // namespace
}  // namespace profdiff::agent
