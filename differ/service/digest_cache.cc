#include "differ/service/digest_cache.h"

namespace profdiff::differ {

RunVersion RunVersion::Of(const v1::StoredRun& run) {
  return RunVersion{.updated_unix_ms = run.updated_unix_ms(),
                    .event_count = run.event_count(),
                    .closed_worker_count = run.closed_worker_count()};
}

std::shared_ptr<const v1::RunDigest> DigestCache::Find(
    const RunKey& key, const RunVersion& version) {
  absl::MutexLock lock(&mu_);
  auto it = index_.find(key);
  if (it == index_.end() || !(it->second->version == version)) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->digest;
}

std::shared_ptr<const v1::RunDigest> DigestCache::FindAnyVersion(
    const RunKey& key) {
  absl::MutexLock lock(&mu_);
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : it->second->digest;
}

void DigestCache::Insert(const RunKey& key, const RunVersion& version,
                         std::shared_ptr<const v1::RunDigest> digest) {
  const size_t bytes = digest->ByteSizeLong();
  absl::MutexLock lock(&mu_);
  if (auto it = index_.find(key); it != index_.end()) EraseLocked(it->second);
  if (bytes > max_bytes_) return;
  while (bytes_ + bytes > max_bytes_ && !lru_.empty())
    EraseLocked(std::prev(lru_.end()));
  lru_.push_front(Entry{.key = key,
                        .version = version,
                        .digest = std::move(digest),
                        .bytes = bytes});
  index_[key] = lru_.begin();
  bytes_ += bytes;
}

void DigestCache::EraseLocked(Lru::iterator it) {
  bytes_ -= it->bytes;
  index_.erase(it->key);
  lru_.erase(it);
}

DigestCacheStats DigestCache::stats() const {
  absl::MutexLock lock(&mu_);
  return DigestCacheStats{.hits = hits_,
                          .misses = misses_,
                          .entries = static_cast<int64_t>(lru_.size()),
                          .bytes = static_cast<int64_t>(bytes_)};
}

}  // namespace profdiff::differ
