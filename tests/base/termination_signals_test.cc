// How the server binaries stop (termination_signals.cc): SIGINT and SIGTERM
// blocked and taken by waiting, and the rest of a server's life once it
// serves. Signals are sent to this thread only (pthread_kill), so no other
// thread of the test binary can receive them.
#include "base/termination_signals.h"

#include <pthread.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/test_dir.h"

namespace profdiff::base {
namespace {

using ::testing::HasSubstr;

// Puts this thread's signal mask back and drops any signal left pending.
class TerminationSignalsTest : public ::testing::Test {
 protected:
  void SetUp() override { pthread_sigmask(SIG_SETMASK, nullptr, &saved_); }
  void TearDown() override {
    sigset_t both;
    sigemptyset(&both);
    sigaddset(&both, SIGINT);
    sigaddset(&both, SIGTERM);
    const timespec none = {0, 0};
    while (sigtimedwait(&both, nullptr, &none) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
  }

  static bool Blocked(int signal) {
    sigset_t mask;
    pthread_sigmask(SIG_SETMASK, nullptr, &mask);
    return sigismember(&mask, signal) == 1;
  }

 private:
  sigset_t saved_;
};

TEST_F(TerminationSignalsTest, ConstructionBlocksSigintAndSigterm) {
  const TerminationSignals signals;
  EXPECT_TRUE(Blocked(SIGINT));
  EXPECT_TRUE(Blocked(SIGTERM));
}

TEST_F(TerminationSignalsTest, WaitReturnsTheSignalThatCame) {
  const TerminationSignals signals;
  ASSERT_EQ(pthread_kill(pthread_self(), SIGTERM), 0);
  EXPECT_EQ(signals.Wait(), SIGTERM);
  ASSERT_EQ(pthread_kill(pthread_self(), SIGINT), 0);
  EXPECT_EQ(signals.Wait(), SIGINT);
}

TEST_F(TerminationSignalsTest, WaitForGivesNothingWhenNoSignalCame) {
  const TerminationSignals signals;
  EXPECT_EQ(signals.WaitFor(absl::Milliseconds(1)), std::nullopt);
  ASSERT_EQ(pthread_kill(pthread_self(), SIGINT), 0);
  EXPECT_EQ(signals.WaitFor(absl::Seconds(10)), SIGINT);
}

TEST_F(TerminationSignalsTest, ServeWritesThePortFileWaitsAndShutsDown) {
  const std::filesystem::path dir = test_support::FreshTestDir("signals");
  const std::string port_file = (dir / "port").string();
  const TerminationSignals signals;
  ASSERT_EQ(pthread_kill(pthread_self(), SIGTERM), 0);
  int shutdowns = 0;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(
      signals.ServeUntilSignal("server", 4321, port_file, [&] { ++shutdowns; }),
      0);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("shutting down signal=15"));
  EXPECT_EQ(shutdowns, 1);
  std::stringstream contents;
  contents << std::ifstream(port_file).rdbuf();
  EXPECT_EQ(contents.str(), "4321\n");
}

TEST_F(TerminationSignalsTest, UnwritablePortFileIsExitCodeOneWithoutWaiting) {
  const TerminationSignals signals;
  int shutdowns = 0;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(signals.ServeUntilSignal("server", 4321, "/nonexistent/dir/port",
                                     [&] { ++shutdowns; }),
            1);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("server: error: "));
  EXPECT_EQ(shutdowns, 0);
}

}  // namespace
}  // namespace profdiff::base
