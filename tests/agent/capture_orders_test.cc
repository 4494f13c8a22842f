#include "agent/capture_orders.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/agent/kineto_client_process.h"
#include "tests/support/test_dir.h"

namespace profdiff::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::KinetoClientProcess;

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

class CaptureOrdersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> next{0};
    name_ = "profdiff-orders-test-" + std::to_string(::getpid()) + "-" +
            std::to_string(next++);
    OpenState();
    auto daemon = KinetoDaemon::Start(
        {.name = name_, .logdir = logs_.path(), .armed = armed_.get()});
    ASSERT_TRUE(daemon.ok()) << daemon.status();
    daemon_ = *std::move(daemon);
  }

  void OpenState() {
    auto armed = ArmedCaptures::Open(state_.path(), absl::Now());
    ASSERT_TRUE(armed.ok()) << armed.status();
    armed_ = *std::move(armed);
  }

  test_support::TempDir logs_;
  test_support::TempDir state_;
  std::string name_;
  std::unique_ptr<ArmedCaptures> armed_;
  std::unique_ptr<KinetoDaemon> daemon_;
};

TEST_F(CaptureOrdersTest,
       AnOrderArmsTheJobsProcessesAndARepeatGetsItsFirstAnswer) {
  KinetoClientProcess rank(name_);
  ASSERT_TRUE(rank.ok());
  ASSERT_EQ(rank.Poll(2, 77), "");
  CaptureOrders orders(daemon_.get(), nullptr, armed_.get());
  ASSERT_EQ(orders.Processes().size(), 1u);
  EXPECT_EQ(orders.Processes()[0].job(), "77");
  EXPECT_EQ(orders.Processes()[0].source(), "kineto");
  EXPECT_EQ(orders.Processes()[0].uid(), ::getuid());

  const v1::CaptureAnswer first = orders.Handle(Order("c1", "77"));
  EXPECT_EQ(first.capture_id(), "c1");
  EXPECT_THAT(first.triggered_pids(), ElementsAre(rank.pid()));
  EXPECT_EQ(orders.Processes()[0].capture_id(), "c1");
  // Sent again after a reconnect: the same answer, not "busy".
  const v1::CaptureAnswer again = orders.Handle(Order("c1", "77"));
  EXPECT_THAT(again.triggered_pids(), ElementsAre(rank.pid()));
  EXPECT_TRUE(again.busy_pids().empty());
  // Another capture while it runs finds the process busy.
  EXPECT_THAT(orders.Handle(Order("c2", "77")).busy_pids(),
              ElementsAre(rank.pid()));
  // The folder kineto will write to is there.
  EXPECT_TRUE(
      std::filesystem::is_directory(logs_.Join("profdiff-captures/c1")));
}

// Regression for #42: a restarted agent (new CaptureOrders, new daemon, the
// same state dir) answers a repeated order as it did and arms nothing.
TEST_F(CaptureOrdersTest, ARestartedAgentAnswersARepeatedOrderAsBefore) {
  KinetoClientProcess rank(name_);
  ASSERT_TRUE(rank.ok());
  ASSERT_EQ(rank.Poll(2, 77), "");
  {
    CaptureOrders orders(daemon_.get(), nullptr, armed_.get());
    EXPECT_THAT(orders.Handle(Order("c1", "77")).triggered_pids(),
                ElementsAre(rank.pid()));
  }
  EXPECT_THAT(rank.Poll(2, 77).value_or(""), HasSubstr("REQUEST_TRACE_ID=c1"));
  daemon_.reset();
  OpenState();
  auto daemon = KinetoDaemon::Start(
      {.name = name_, .logdir = logs_.path(), .armed = armed_.get()});
  ASSERT_TRUE(daemon.ok());
  daemon_ = *std::move(daemon);
  CaptureOrders orders(daemon_.get(), nullptr, armed_.get());
  const v1::CaptureAnswer repeated = orders.Handle(Order("c1", "77"));
  EXPECT_THAT(repeated.triggered_pids(), ElementsAre(rank.pid()));
  EXPECT_TRUE(repeated.busy_pids().empty());
  EXPECT_EQ(rank.Poll(2, 77), "");  // no second config
}

TEST_F(CaptureOrdersTest, ACancelReachesTheDaemonAndTheKeptCapture) {
  KinetoClientProcess rank(name_);
  ASSERT_TRUE(rank.ok());
  ASSERT_EQ(rank.Poll(2, 77), "");
  CaptureOrders orders(daemon_.get(), nullptr, armed_.get());
  ASSERT_THAT(orders.Handle(Order("c1", "77")).triggered_pids(),
              ElementsAre(rank.pid()));
  v1::CaptureCancel cancel;
  cancel.set_capture_id("c1");
  orders.Cancel(cancel);
  EXPECT_EQ(rank.Poll(2, 77), "");  // the config not taken is gone
  ASSERT_EQ(armed_->Running(absl::Now()).size(), 1u);
  EXPECT_TRUE(armed_->Running(absl::Now())[0].cancelled());
  // The job may capture again at once.
  EXPECT_THAT(orders.Handle(Order("c2", "77")).triggered_pids(),
              ElementsAre(rank.pid()));
}

TEST(CaptureOrdersWithoutProcessesTest,
     WithoutAKinetoDaemonAnOrderIsAnsweredWithWhy) {
  test_support::TempDir state;
  auto armed = ArmedCaptures::Open(state.path(), absl::Now());
  ASSERT_TRUE(armed.ok());
  CaptureOrders orders(nullptr, nullptr, armed->get());
  EXPECT_TRUE(orders.Processes().empty());
  EXPECT_THAT(orders.Handle(Order("c", "7")).error(),
              HasSubstr("start it with --kineto-daemon"));
}

}  // namespace
}  // namespace profdiff::agent
