// The profiles a replica built lately, kept in memory by (run, worker) with the
// span ids each covers, so the digest a run's last close starts (and any read
// of those workers) takes them from here rather than reading a thousand
// profiles back from the servers. A profile is exact for the spans it covers,
// whoever built it, so an entry serves any read whose worker's counted closed
// spans are exactly its span ids; any other read ignores it. Least recently
// used out, bounded by the bytes kept. Kept serialized and zstd-compressed: a
// thousand-rank run's profiles are ~400 KB each serialized and several times
// that parsed, a gigabyte or more, and a tenth of it compressed. Thread-safe.
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_PROFILE_CACHE_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_PROFILE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>
#include <absl/synchronization/mutex.h>

#include "profdiff/v1/profile.pb.h"

namespace profdiff::aggregator::clickhouse {

class ProfileCache {
 public:
  explicit ProfileCache(size_t max_bytes) : max_bytes_(max_bytes) {}
  ProfileCache(const ProfileCache&) = delete;
  ProfileCache& operator=(const ProfileCache&) = delete;

  // A profile serialized and zstd-compressed, as entries (and the store's
  // profile rows) hold it.
  struct Compressed {
    std::shared_ptr<const std::string> zstd;
    size_t raw_bytes = 0;  // serialized
    int32_t step_count = 0;
  };
  static absl::StatusOr<Compressed> Compress(const v1::WorkerProfile& profile);

  // Keeps `profile` as the worker's, covering `span_ids`, in place of any
  // entry for the worker. One larger than the whole bound is not kept.
  void Put(const std::string& run, const std::string& worker,
           std::vector<std::string> span_ids, Compressed profile)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The worker's profile if one covering exactly `span_ids` is kept, else
  // nullopt.
  std::optional<v1::WorkerProfile> Find(
      const std::string& run, const std::string& worker,
      const std::vector<std::string>& span_ids) const ABSL_LOCKS_EXCLUDED(mu_);
  // Whether Find would find it (without reading it back).
  bool Covers(const std::string& run, const std::string& worker,
              const std::vector<std::string>& span_ids) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // Its steps, when Covers (GetRun lists them per worker).
  std::optional<int32_t> StepCount(
      const std::string& run, const std::string& worker,
      const std::vector<std::string>& span_ids) const ABSL_LOCKS_EXCLUDED(mu_);

  size_t bytes() const ABSL_LOCKS_EXCLUDED(mu_);
  size_t entries() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  using Key = std::pair<std::string, std::string>;  // run, worker
  struct Entry {
    Key key;
    std::vector<std::string> span_ids;
    Compressed profile;
  };
  using Lru = std::list<Entry>;  // front: most recently used

  // The entry covering exactly `span_ids`, or null.
  const Entry* FindLocked(const std::string& run, const std::string& worker,
                          const std::vector<std::string>& span_ids) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EraseLocked(Lru::iterator entry) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t max_bytes_;
  mutable absl::Mutex mu_;
  mutable Lru lru_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<Key, Lru::iterator> index_ ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace profdiff::aggregator::clickhouse

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_PROFILE_CACHE_H_
