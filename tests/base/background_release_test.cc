#include "base/background_release.h"

#include <atomic>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace profdiff::base {
namespace {

// Notes where and whether it was destroyed.
struct Noted {
  explicit Noted(std::atomic<int>* count, std::thread::id* where)
      : count(count), where(where) {}
  Noted(Noted&& other) noexcept
      : count(std::exchange(other.count, nullptr)),
        where(std::exchange(other.where, nullptr)) {}
  Noted& operator=(Noted&&) = delete;
  ~Noted() {
    if (count == nullptr) return;  // moved from
    *where = std::this_thread::get_id();
    count->fetch_add(1);
  }
  std::atomic<int>* count;
  std::thread::id* where;
};

TEST(BackgroundReleaseTest, ValuesAreDestroyedOnAnotherThreadByTheEnd) {
  std::atomic<int> destroyed{0};
  std::vector<std::thread::id> where(3);
  {
    BackgroundRelease release;
    for (std::thread::id& id : where) {
      std::vector<Noted> values;
      values.emplace_back(&destroyed, &id);
      release.Release(std::move(values));
    }
    // A value that owns memory, as the profiles do.
    release.Release(std::make_unique<std::vector<int>>(1 << 20, 7));
  }
  EXPECT_EQ(destroyed.load(), 3);
  for (const std::thread::id& id : where)
    EXPECT_NE(id, std::this_thread::get_id());
}

}  // namespace
}  // namespace profdiff::base
