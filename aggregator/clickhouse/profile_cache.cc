#include "aggregator/clickhouse/profile_cache.h"

#include "aggregator/store/batch_codec.h"
#include "base/log.h"
#include "base/status_macros.h"

namespace profdiff::aggregator::clickhouse {

absl::StatusOr<ProfileCache::Compressed> ProfileCache::Compress(
    const v1::WorkerProfile& profile) {
  const std::string serialized = profile.SerializeAsString();
  auto zstd = std::make_shared<std::string>();
  PD_RETURN_IF_ERROR(BatchCompressor().Compress(serialized, *zstd));
  zstd->shrink_to_fit();  // Compress sized it for the worst case
  return Compressed{std::move(zstd), serialized.size(), profile.steps_size()};
}

void ProfileCache::Put(const std::string& run, const std::string& worker,
                       std::vector<std::string> span_ids, Compressed profile) {
  Key key(run, worker);
  absl::MutexLock lock(&mu_);
  if (auto it = index_.find(key); it != index_.end()) EraseLocked(it->second);
  // Capacity, not size: what the entry holds in memory.
  if (profile.zstd->capacity() > max_bytes_) return;
  bytes_ += profile.zstd->capacity();
  lru_.push_front({key, std::move(span_ids), std::move(profile)});
  index_.emplace(std::move(key), lru_.begin());
  while (bytes_ > max_bytes_) EraseLocked(std::prev(lru_.end()));
}

std::optional<v1::WorkerProfile> ProfileCache::Find(
    const std::string& run, const std::string& worker,
    const std::vector<std::string>& span_ids) const {
  std::shared_ptr<const std::string> compressed;
  size_t raw_bytes = 0;
  {
    absl::MutexLock lock(&mu_);
    const Entry* entry = FindLocked(run, worker, span_ids);
    if (entry == nullptr) return std::nullopt;
    compressed = entry->profile.zstd;
    raw_bytes = entry->profile.raw_bytes;
  }
  BatchDecompressor decompressor;
  absl::StatusOr<std::string_view> raw =
      decompressor.Decompress(*compressed, raw_bytes);
  v1::WorkerProfile profile;
  if (!raw.ok() ||
      !profile.ParseFromArray(raw->data(), static_cast<int>(raw->size()))) {
    // Memory this process wrote: only a defect gets here. The caller reads or
    // builds the profile instead.
    PD_LOG(ERROR, "profile of %s/%s kept in memory does not read back: %s", run,
           worker, raw.ok() ? "does not parse" : raw.status().ToString());
    return std::nullopt;
  }
  return profile;
}

bool ProfileCache::Covers(const std::string& run, const std::string& worker,
                          const std::vector<std::string>& span_ids) const {
  absl::MutexLock lock(&mu_);
  return FindLocked(run, worker, span_ids) != nullptr;
}

std::optional<int32_t> ProfileCache::StepCount(
    const std::string& run, const std::string& worker,
    const std::vector<std::string>& span_ids) const {
  absl::MutexLock lock(&mu_);
  const Entry* entry = FindLocked(run, worker, span_ids);
  if (entry == nullptr) return std::nullopt;
  return entry->profile.step_count;
}

const ProfileCache::Entry* ProfileCache::FindLocked(
    const std::string& run, const std::string& worker,
    const std::vector<std::string>& span_ids) const {
  auto it = index_.find(Key(run, worker));
  if (it == index_.end() || it->second->span_ids != span_ids) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return &*it->second;
}

size_t ProfileCache::bytes() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

size_t ProfileCache::entries() const {
  absl::MutexLock lock(&mu_);
  return lru_.size();
}

void ProfileCache::EraseLocked(Lru::iterator entry) {
  bytes_ -= entry->profile.zstd->capacity();
  index_.erase(entry->key);
  lru_.erase(entry);
}

}  // namespace profdiff::aggregator::clickhouse
