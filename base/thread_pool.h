// Threads for a server's blocking work (the aggregator's fsync and segment
// reads, the differ's profile fetches and diffs), so gRPC's callback threads
// never block.
#ifndef PROFDIFF_BASE_THREAD_POOL_H_
#define PROFDIFF_BASE_THREAD_POOL_H_

#include <deque>
#include <thread>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/functional/any_invocable.h>
#include <absl/synchronization/mutex.h>

namespace profdiff::base {

// A fixed set of threads running posted work in FIFO order. Thread-safe.
class ThreadPool {
 public:
  explicit ThreadPool(int threads);
  // Runs everything already posted, then joins the threads.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Post(absl::AnyInvocable<void() &&> work) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void RunWorker() ABSL_LOCKS_EXCLUDED(mu_);

  absl::Mutex mu_;
  std::deque<absl::AnyInvocable<void() &&>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::jthread> threads_;
};

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_THREAD_POOL_H_
