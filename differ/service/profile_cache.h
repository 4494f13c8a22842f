// The profiles of COMPLETE runs the differ has fetched, so a second diff
// against the same baseline does not fetch (and the aggregator does not
// rebuild) it again.
#ifndef PROFDIFF_DIFFER_SERVICE_PROFILE_CACHE_H_
#define PROFDIFF_DIFFER_SERVICE_PROFILE_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/synchronization/mutex.h>

#include "profdiff/v1/profile.pb.h"
#include "profdiff/v1/run_store.pb.h"

namespace profdiff::differ {

// What a cached profile was built from. A run that changed since (a late span
// reopened it, a re-uploaded span closed) has another version, and its cached
// profile is not used.
struct RunVersion {
  int64_t updated_unix_ms = 0;
  int64_t event_count = 0;
  int32_t closed_worker_count = 0;

  static RunVersion Of(const v1::StoredRun& run);
  bool operator==(const RunVersion&) const = default;
};

struct ProfileKey {
  std::string run;
  v1::Grouping operator_grouping = v1::GROUPING_UNSPECIFIED;
  v1::Grouping kernel_grouping = v1::GROUPING_UNSPECIFIED;

  bool operator==(const ProfileKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const ProfileKey& key) {
    return H::combine(std::move(h), key.run, key.operator_grouping,
                      key.kernel_grouping);
  }
};

struct ProfileCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t entries = 0;
  int64_t bytes = 0;
};

// Least recently used first out, bounded by the profiles' serialized size.
// Thread-safe.
class ProfileCache {
 public:
  explicit ProfileCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  // The profile cached for `key` at `version`, else null (counted as a miss).
  std::shared_ptr<const v1::RunProfile> Find(const ProfileKey& key,
                                             const RunVersion& version)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The profile cached for `key` at whatever version, for when the store cannot
  // be asked.
  std::shared_ptr<const v1::RunProfile> FindAnyVersion(const ProfileKey& key)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Replaces what `key` held. A profile larger than the whole cache is not
  // kept.
  void Insert(const ProfileKey& key, const RunVersion& version,
              std::shared_ptr<const v1::RunProfile> profile)
      ABSL_LOCKS_EXCLUDED(mu_);
  ProfileCacheStats stats() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Entry {
    ProfileKey key;
    RunVersion version;
    std::shared_ptr<const v1::RunProfile> profile;
    size_t bytes = 0;
  };
  using Lru = std::list<Entry>;  // front = most recently used

  void EraseLocked(Lru::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t max_bytes_;
  mutable absl::Mutex mu_;
  Lru lru_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<ProfileKey, Lru::iterator> index_ ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t hits_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t misses_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SERVICE_PROFILE_CACHE_H_
