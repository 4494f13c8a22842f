// The fixed pool of buffers CUPTI fills with activity records: memory stays
// bounded however far the consumer falls behind, and an empty pool makes CUPTI
// drop (and count) records instead of the process growing without limit.
#ifndef PROFDIFF_AGENT_CUPTI_ACTIVITY_BUFFER_POOL_H_
#define PROFDIFF_AGENT_CUPTI_ACTIVITY_BUFFER_POOL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>

namespace profdiff::agent::cupti {

// CUPTI wants record buffers aligned to 8 bytes (ALIGN_SIZE in its samples).
inline constexpr size_t kActivityBufferAlignment = 8;

// Thread-safe: CUPTI requests and completes buffers on its own threads.
class ActivityBufferPool {
 public:
  // `count` buffers of `bytes` each (rounded up to the alignment), allocated
  // now.
  ActivityBufferPool(size_t count, size_t bytes);

  // A free buffer of buffer_bytes(), or nullptr when every buffer is in use.
  uint8_t* Acquire() ABSL_LOCKS_EXCLUDED(mu_);
  // Returns a buffer Acquire gave out. A pointer that is not one is ignored and
  // counted.
  void Release(uint8_t* buffer) ABSL_LOCKS_EXCLUDED(mu_);

  size_t buffer_bytes() const { return bytes_; }
  size_t free_count() const ABSL_LOCKS_EXCLUDED(mu_);
  // Acquire calls that found the pool empty.
  int64_t exhausted() const ABSL_LOCKS_EXCLUDED(mu_);
  // Release calls with a pointer the pool did not give out.
  int64_t foreign_releases() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Aligned {
    std::unique_ptr<uint64_t[]> words;  // uint64_t gives the 8-byte alignment
    uint8_t* bytes() const { return reinterpret_cast<uint8_t*>(words.get()); }
  };

  const size_t bytes_;
  std::vector<Aligned> buffers_;  // fixed after construction
  mutable absl::Mutex mu_;
  std::vector<uint8_t*> free_ ABSL_GUARDED_BY(mu_);
  int64_t exhausted_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t foreign_releases_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace profdiff::agent::cupti

#endif  // PROFDIFF_AGENT_CUPTI_ACTIVITY_BUFFER_POOL_H_
