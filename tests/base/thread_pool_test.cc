// A fixed set of threads running posted work (thread_pool.cc): FIFO order,
// work on several threads at once, and everything posted run before the
// destructor returns.
#include "base/thread_pool.h"

#include <memory>
#include <thread>
#include <utility>
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

// As the CLI diff frees its profiles: a value moved into the work is destroyed
// on the pool's thread, before the destructor returns.
TEST(ThreadPoolTest, ValuesMovedInAreFreedOnThePoolsThreadByTheEnd) {
  struct Noted {
    Noted(int* count, std::thread::id* where) : count(count), where(where) {}
    Noted(Noted&& other) noexcept
        : count(std::exchange(other.count, nullptr)),
          where(std::exchange(other.where, nullptr)) {}
    Noted& operator=(Noted&&) = delete;
    ~Noted() {
      if (count == nullptr) return;  // moved from
      *where = std::this_thread::get_id();
      ++*count;
    }
    int* count;
    std::thread::id* where;
  };
  int destroyed = 0;
  std::vector<std::thread::id> where(3);
  {
    ThreadPool pool(1);
    for (std::thread::id& id : where) {
      std::vector<Noted> values;
      values.emplace_back(&destroyed, &id);
      pool.Post([values = std::move(values)]() mutable {
        const std::vector<Noted> freed = std::move(values);
      });
    }
  }
  EXPECT_EQ(destroyed, 3);
  for (const std::thread::id& id : where)
    EXPECT_NE(id, std::this_thread::get_id());
}

}  // namespace
}  // namespace profdiff::base
