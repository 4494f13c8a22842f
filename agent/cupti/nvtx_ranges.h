// Pairs NVTX range callbacks into finished host ranges: push/pop nest per
// thread and NVTX domain (each domain has its own stack), start/end pair by
// range id across threads. Pure bookkeeping on (thread, time, message), so it
// is tested without CUDA.
//
// Design:
// 1. The NVTX callbacks run on the application's threads, concurrently; one
//    mutex guards the per-thread stacks (an uncontended lock costs far less
//    than the op an NVTX range wraps).
// 2. A pop with an empty stack, or an end of an unknown id, is counted, not an
//    error: NVTX allows unbalanced calls and a capture can start inside a
//    range.
// 3. Stacks and open start/end ranges are bounded; a push or start past the
//    bound is counted as dropped (its pop then pops nothing it knows and is
//    counted too).
#ifndef PROFDIFF_AGENT_CUPTI_NVTX_RANGES_H_
#define PROFDIFF_AGENT_CUPTI_NVTX_RANGES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/synchronization/mutex.h>

namespace profdiff::agent::cupti {

// One finished NVTX range on a host thread.
struct HostRange {
  std::string message;  // the range's text as the application gave it
  int64_t thread = 0;   // OS thread id that pushed or started it
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

// Counts of calls that made no range.
struct NvtxRangeCounters {
  int64_t unmatched_pops = 0;  // pop on an empty stack, end of an unknown id
  int64_t dropped = 0;         // push/start past the bounds
};

// Thread-safe.
class NvtxRangeRecorder {
 public:
  // Bounds: open ranges per thread stack, and open start/end ranges in all.
  explicit NvtxRangeRecorder(size_t max_depth = 1024,
                             size_t max_open_started = 65536);

  // `domain` is the NVTX domain handle's value, 0 for the global domain.
  void Push(int64_t thread, uintptr_t domain, uint64_t t_ns,
            std::string_view message) ABSL_LOCKS_EXCLUDED(mu_);
  // The range this pop closes, or nullopt when the thread has none open in
  // `domain`.
  std::optional<HostRange> Pop(int64_t thread, uintptr_t domain, uint64_t t_ns)
      ABSL_LOCKS_EXCLUDED(mu_);

  void Start(uint64_t id, int64_t thread, uint64_t t_ns,
             std::string_view message) ABSL_LOCKS_EXCLUDED(mu_);
  // The range `id` names, or nullopt when it is not open.
  std::optional<HostRange> End(uint64_t id, uint64_t t_ns)
      ABSL_LOCKS_EXCLUDED(mu_);

  NvtxRangeCounters counters() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const size_t max_depth_;
  const size_t max_open_started_;
  mutable absl::Mutex mu_;
  using StackKey = std::pair<int64_t, uintptr_t>;  // (thread, domain)
  absl::flat_hash_map<StackKey, std::vector<HostRange>> stacks_
      ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, HostRange> started_ ABSL_GUARDED_BY(mu_);
  // Pushes dropped past max_depth per thread: their pops must not close an
  // outer range.
  absl::flat_hash_map<StackKey, int64_t> overflow_ ABSL_GUARDED_BY(mu_);
  NvtxRangeCounters counters_ ABSL_GUARDED_BY(mu_);
};

}  // namespace profdiff::agent::cupti

#endif  // PROFDIFF_AGENT_CUPTI_NVTX_RANGES_H_
