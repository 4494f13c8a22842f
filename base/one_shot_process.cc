#include "base/one_shot_process.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <absl/synchronization/mutex.h>

namespace profdiff::base {
namespace {

std::atomic<bool> one_shot{false};

struct Kept {
  absl::Mutex mu;
  std::vector<std::shared_ptr<void>> values ABSL_GUARDED_BY(mu);
};

Kept& KeptValues() {
  // Destroyed only by a normal exit (an error's): EndOneShotProcess skips it.
  static Kept kept;
  return kept;
}

}  // namespace

void MarkOneShotProcess() { one_shot.store(true, std::memory_order_relaxed); }

bool IsOneShotProcess() { return one_shot.load(std::memory_order_relaxed); }

void KeepUntilExit(std::shared_ptr<void> what) {
  Kept& kept = KeptValues();
  const absl::MutexLock lock(&kept.mu);
  kept.values.push_back(std::move(what));
}

void EndOneShotProcess(const char* program, int code) {
  // A write that failed before (fwrite's) leaves only the stream's error flag.
  if (std::fflush(nullptr) != 0 || std::ferror(stdout) != 0) {
    const int error = errno;
    std::fprintf(stderr, "%s: error: writing the output: %s\n", program,
                 std::strerror(error));
    std::_Exit(1);
  }
  std::_Exit(code);
}

}  // namespace profdiff::base
