#include "agent/capture_orders.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/agent/libkineto_client.h"
#include "tests/agent/temp_dir.h"

namespace profdiff::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::LibkinetoClient;

v1::CaptureOrder Order(const std::string& id, const std::string& job) {
  v1::CaptureOrder order;
  order.set_capture_id(id);
  order.set_run(id);
  order.set_job(job);
  order.set_steps(2);
  order.set_start_at_step(-1);
  order.set_deadline_unix_ms(
      absl::ToUnixMillis(absl::Now() + absl::Minutes(1)));
  return order;
}

TEST(CaptureOrdersTest,
     AnOrderArmsTheJobsProcessesAndARepeatGetsItsFirstAnswer) {
  TempDir logs;
  static std::atomic<int> next{0};
  const std::string name = "profdiff-orders-test-" +
                           std::to_string(::getpid()) + "-" +
                           std::to_string(next++);
  auto daemon = KinetoDaemon::Start({.name = name, .logdir = logs.path()});
  ASSERT_TRUE(daemon.ok()) << daemon.status();
  LibkinetoClient rank(name);
  ASSERT_TRUE(rank.ok());
  ASSERT_EQ(rank.Poll(2, 77, {5001}), "");
  CaptureOrders orders(daemon->get(), nullptr);
  ASSERT_EQ(orders.Processes().size(), 1u);
  EXPECT_EQ(orders.Processes()[0].job(), "77");
  EXPECT_EQ(orders.Processes()[0].source(), "kineto");

  const v1::CaptureAnswer first = orders.Handle(Order("c1", "77"));
  EXPECT_EQ(first.capture_id(), "c1");
  EXPECT_THAT(first.triggered_pids(), ElementsAre(5001));
  EXPECT_EQ(orders.Processes()[0].capture_id(), "c1");
  // Sent again after a reconnect: the same answer, not "busy".
  const v1::CaptureAnswer again = orders.Handle(Order("c1", "77"));
  EXPECT_THAT(again.triggered_pids(), ElementsAre(5001));
  EXPECT_TRUE(again.busy_pids().empty());
  // Another capture while it runs finds the process busy.
  EXPECT_THAT(orders.Handle(Order("c2", "77")).busy_pids(), ElementsAre(5001));
  // The folder kineto will write to is there.
  EXPECT_TRUE(std::filesystem::is_directory(logs.Join("profdiff-captures/c1")));
}

TEST(CaptureOrdersTest, WithoutAKinetoDaemonAnOrderIsAnsweredWithWhy) {
  CaptureOrders orders(nullptr, nullptr);
  EXPECT_TRUE(orders.Processes().empty());
  EXPECT_THAT(orders.Handle(Order("c", "7")).error(),
              HasSubstr("start it with --kineto-daemon"));
}

}  // namespace
}  // namespace profdiff::agent
