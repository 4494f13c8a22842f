#include "base/thread_pool.h"

#include <utility>

namespace profdiff::base {

ThreadPool::ThreadPool(int threads) {
  for (int i = 0; i < threads; ++i)
    threads_.emplace_back([this] { RunWorker(); });
}

ThreadPool::~ThreadPool() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  threads_.clear();  // joins
}

void ThreadPool::Post(absl::AnyInvocable<void() &&> work) {
  absl::MutexLock lock(&mu_);
  queue_.push_back(std::move(work));
}

void ThreadPool::RunWorker() {
  while (true) {
    absl::AnyInvocable<void() &&> work;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](ThreadPool* pool) ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool->mu_) {
            return pool->stopping_ || !pool->queue_.empty();
          },
          this));
      if (queue_.empty()) return;  // stopping, and everything posted has run
      work = std::move(queue_.front());
      queue_.pop_front();
    }
    std::move(work)();
  }
}

}  // namespace profdiff::base
