// A one-shot process (the CLI: one command, then exit) need not free what its
// command built: the kernel takes the whole address space back at once. Freeing
// two traces' profiles and the report, waited for before the exit, and the
// exit's destructors were ~5 ms of a 75 ms `profdiff diff` of the xDiT pair.
// Clang's -disable-free makes the same choice. Only a process whose main marks
// itself skips the frees: library callers and tests free as before.
#ifndef PROFDIFF_BASE_ONE_SHOT_PROCESS_H_
#define PROFDIFF_BASE_ONE_SHOT_PROCESS_H_

#include <memory>
#include <optional>
#include <utility>

#include "base/thread_pool.h"

namespace profdiff::base {

// Main calls it before any command runs.
void MarkOneShotProcess();
bool IsOneShotProcess();

// Keeps `what` alive, unfreed, until the process ends.
void KeepUntilExit(std::shared_ptr<void> what);

// Ends the process with `code` once stdio's streams are flushed, without
// running destructors or atexit handlers. Standard output that could not be
// written (a full disk behind it) is said on standard error, after `program`,
// and exits 1.
[[noreturn]] void EndOneShotProcess(const char* program, int code);

// Gives up `value` (left moved-from): in a one-shot process kept unfreed until
// the exit, elsewhere destroyed here.
template <typename T>
void Discard(T& value) {
  T taken = std::move(value);
  if (IsOneShotProcess()) KeepUntilExit(std::make_shared<T>(std::move(taken)));
}

// What a command no longer needs, given up beside the rest of its work: in a
// one-shot process kept unfreed until the exit, elsewhere freed on a thread
// of its own, which the destructor waits for. Not thread-safe.
class Discarder {
 public:
  template <typename T>
  void Discard(T value) {
    if (IsOneShotProcess()) {
      base::Discard(value);
      return;
    }
    if (!pool_.has_value()) pool_.emplace(1);
    pool_->Post([value = std::move(value)]() mutable {
      const T freed = std::move(value);
    });
  }

 private:
  std::optional<ThreadPool> pool_;
};

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_ONE_SHOT_PROCESS_H_
