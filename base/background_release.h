// Frees large values on a thread of their own while the caller goes on: a CLI
// diff of two large traces spent ~3 ms destroying the two runs' profiles on
// its main thread before it wrote the report, with the other core idle. The
// destructor waits for every value given, so nothing outlives its owner.
#ifndef PROFDIFF_BASE_BACKGROUND_RELEASE_H_
#define PROFDIFF_BASE_BACKGROUND_RELEASE_H_

#include <thread>
#include <utility>
#include <vector>

namespace profdiff::base {

class BackgroundRelease {
 public:
  BackgroundRelease() = default;
  BackgroundRelease(const BackgroundRelease&) = delete;
  BackgroundRelease& operator=(const BackgroundRelease&) = delete;
  ~BackgroundRelease() = default;  // the threads join

  // Destroys `value` on a new thread.
  template <typename T>
  void Release(T value) {
    threads_.emplace_back([held = std::move(value)]() mutable {
      const T released = std::move(held);
    });
  }

 private:
  std::vector<std::jthread> threads_;
};

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_BACKGROUND_RELEASE_H_
