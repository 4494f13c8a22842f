// A fixed set of threads running posted work (thread_pool.cc): FIFO order,
// work on several threads at once, and everything posted run before the
// destructor returns.
#include "base/thread_pool.h"

#include <memory>
#include <thread>
#include <vector>

#include <absl/synchronization/blocking_counter.h>
#include <absl/synchronization/mutex.h>
#include <absl/synchronization/notification.h>
#include <gtest/gtest.h>

namespace profdiff::base {
namespace {

TEST(ThreadPoolTest, DestructorRunsEverythingPostedFirst) {
  int runs = 0;
  {
    ThreadPool pool(2);
    absl::Mutex mu;
    for (int i = 0; i < 100; ++i) {
      pool.Post([&] {
        absl::MutexLock lock(&mu);
        ++runs;
      });
    }
  }
  EXPECT_EQ(runs, 100);
}

TEST(ThreadPoolTest, OneThreadRunsWorkInTheOrderPosted) {
  std::vector<int> order;
  {
    ThreadPool pool(1);
    absl::Notification release;
    pool.Post([&] { release.WaitForNotification(); });  // the rest queue up
    for (int i = 0; i < 5; ++i) pool.Post([&order, i] { order.push_back(i); });
    release.Notify();
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(ThreadPoolTest, WorkRunsOnSeveralThreadsAtOnce) {
  // Each of three tasks waits until all three have started: this ends only
  // when three threads run them together.
  ThreadPool pool(3);
  absl::Mutex mu;
  int started = 0;
  absl::BlockingCounter finished(3);
  for (int i = 0; i < 3; ++i) {
    pool.Post([&] {
      {
        absl::MutexLock lock(&mu);
        ++started;
        mu.Await(absl::Condition(
            +[](int* n) { return *n == 3; }, &started));
      }
      finished.DecrementCount();
    });
  }
  finished.Wait();
}

TEST(ThreadPoolTest, WorkRunsOffThePostingThread) {
  ThreadPool pool(1);
  absl::Notification ran;
  std::thread::id runner;
  pool.Post([&] {
    runner = std::this_thread::get_id();
    ran.Notify();
  });
  ran.WaitForNotification();
  EXPECT_NE(runner, std::this_thread::get_id());
}

TEST(ThreadPoolTest, WorkMayPostMoreWorkThatStillRuns) {
  int second_ran = 0;
  {
    ThreadPool pool(1);
    pool.Post([&] { pool.Post([&] { second_ran = 1; }); });
  }
  EXPECT_EQ(second_ran, 1);
}

TEST(ThreadPoolTest, MoveOnlyWorkIsAccepted) {
  int value = 0;
  {
    ThreadPool pool(1);
    auto owned = std::make_unique<int>(42);
    pool.Post([&value, owned = std::move(owned)] { value = *owned; });
  }
  EXPECT_EQ(value, 42);
}

}  // namespace
}  // namespace profdiff::base
