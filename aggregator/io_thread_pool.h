// Threads for the aggregator's blocking work (fsync, reading segments, building profiles), so
// gRPC's callback threads never block on disk (STYLE.md §8).
#ifndef PROFDIFF_AGGREGATOR_IO_THREAD_POOL_H_
#define PROFDIFF_AGGREGATOR_IO_THREAD_POOL_H_

#include <deque>
#include <thread>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/functional/any_invocable.h>
#include <absl/synchronization/mutex.h>

namespace profdiff::aggregator {

// A fixed set of threads running posted work in FIFO order. More threads than cores pays off:
// most of the work waits on fsync. Thread-safe.
class IoThreadPool {
 public:
  explicit IoThreadPool(int threads);
  // Runs everything already posted, then joins the threads.
  ~IoThreadPool();
  IoThreadPool(const IoThreadPool&) = delete;
  IoThreadPool& operator=(const IoThreadPool&) = delete;

  void Post(absl::AnyInvocable<void() &&> work) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void RunWorker() ABSL_LOCKS_EXCLUDED(mu_);

  absl::Mutex mu_;
  std::deque<absl::AnyInvocable<void() &&>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::jthread> threads_;
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_IO_THREAD_POOL_H_
