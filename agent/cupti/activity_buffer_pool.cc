#include "agent/cupti/activity_buffer_pool.h"

#include <algorithm>

namespace profdiff::agent::cupti {

ActivityBufferPool::ActivityBufferPool(size_t count, size_t bytes)
    : bytes_((bytes + kActivityBufferAlignment - 1) / kActivityBufferAlignment *
             kActivityBufferAlignment) {
  buffers_.reserve(count);
  absl::MutexLock lock(&mu_);
  for (size_t i = 0; i < count; ++i) {
    buffers_.push_back(Aligned{
        std::make_unique_for_overwrite<uint64_t[]>(bytes_ / sizeof(uint64_t))});
    free_.push_back(buffers_.back().bytes());
  }
}

uint8_t* ActivityBufferPool::Acquire() {
  absl::MutexLock lock(&mu_);
  if (free_.empty()) {
    ++exhausted_;
    return nullptr;
  }
  uint8_t* buffer = free_.back();
  free_.pop_back();
  return buffer;
}

void ActivityBufferPool::Release(uint8_t* buffer) {
  const bool ours =
      std::any_of(buffers_.begin(), buffers_.end(),
                  [buffer](const Aligned& a) { return a.bytes() == buffer; });
  absl::MutexLock lock(&mu_);
  if (!ours || std::find(free_.begin(), free_.end(), buffer) != free_.end()) {
    ++foreign_releases_;  // not ours, or released twice
    return;
  }
  free_.push_back(buffer);
}

size_t ActivityBufferPool::free_count() const {
  absl::MutexLock lock(&mu_);
  return free_.size();
}

int64_t ActivityBufferPool::exhausted() const {
  absl::MutexLock lock(&mu_);
  return exhausted_;
}

int64_t ActivityBufferPool::foreign_releases() const {
  absl::MutexLock lock(&mu_);
  return foreign_releases_;
}

}  // namespace profdiff::agent::cupti
