// A one-shot process's frees skipped (one_shot_process.cc): a library process
// still destroys what it discards, a marked one keeps it to the exit, and its
// end flushes the output or says it could not. The marked cases run in a
// child (EXPECT_EXIT): marking cannot be undone.
#include "base/one_shot_process.h"

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::base {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Counts its destruction (a moved-from one counts nothing), and says so on
// standard error, where the child's checks look.
class Counted {
 public:
  explicit Counted(std::atomic<int>* destroyed) : destroyed_(destroyed) {}
  Counted(Counted&& other) noexcept
      : destroyed_(std::exchange(other.destroyed_, nullptr)) {}
  Counted& operator=(Counted&&) = delete;
  ~Counted() {
    if (destroyed_ == nullptr) return;
    destroyed_->fetch_add(1);
    std::fputs("destroyed\n", stderr);
  }

 private:
  std::atomic<int>* destroyed_;
};

TEST(OneShotProcessTest, ALibraryProcessDestroysWhatItDiscardsThere) {
  ASSERT_FALSE(IsOneShotProcess());
  std::atomic<int> destroyed{0};
  Counted value(&destroyed);
  Discard(value);
  EXPECT_EQ(destroyed.load(), 1);
}

TEST(OneShotProcessTest, ALibraryDiscarderFreesOnItsThreadAndWaits) {
  std::atomic<int> destroyed{0};
  std::vector<int> big(1 << 20, 7);
  {
    Discarder discarder;
    discarder.Discard(Counted(&destroyed));
    discarder.Discard(std::move(big));
  }
  EXPECT_EQ(destroyed.load(), 1);
}

TEST(OneShotProcessTest, AOneShotProcessEndsWithoutFreeingWithItsOutput) {
  EXPECT_EXIT(
      {
        MarkOneShotProcess();
        std::atomic<int> destroyed{0};
        Counted kept(&destroyed);
        Discard(kept);
        Discarder discarder;
        discarder.Discard(Counted(&destroyed));
        std::fputs(std::to_string(destroyed.load()).c_str(), stderr);
        std::fputs(" destroyed before the end\n", stderr);
        EndOneShotProcess("test", 7);
      },
      ::testing::ExitedWithCode(7),
      ::testing::AllOf(HasSubstr("0 destroyed before the end"),
                       Not(HasSubstr("destroyed\n"))));
}

TEST(OneShotProcessTest, AOneShotProcessSaysItsOutputWasNotWritten) {
  if (std::FILE* full = std::fopen("/dev/full", "w"); full == nullptr) {
    GTEST_SKIP() << "SKIPPED: no /dev/full to write to";
  } else {
    std::fclose(full);
  }
  EXPECT_EXIT(
      {
        MarkOneShotProcess();
        if (std::freopen("/dev/full", "w", stdout) == nullptr) std::_Exit(5);
        const std::string report(64 << 10, 'x');
        std::fwrite(report.data(), 1, report.size(), stdout);
        EndOneShotProcess("test", 0);
      },
      ::testing::ExitedWithCode(1),
      HasSubstr("test: error: writing the output: No space left on device"));
}

}  // namespace
}  // namespace profdiff::base
