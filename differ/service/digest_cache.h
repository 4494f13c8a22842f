// The digests of COMPLETE runs the differ has fetched (RunStore.GetRunDigest),
// so a second diff against the same baseline does not fetch it again.
#ifndef PROFDIFF_DIFFER_SERVICE_DIGEST_CACHE_H_
#define PROFDIFF_DIFFER_SERVICE_DIGEST_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/synchronization/mutex.h>

#include "profdiff/v1/digest.pb.h"
#include "profdiff/v1/profile.pb.h"
#include "profdiff/v1/run_store.pb.h"

namespace profdiff::differ {

// What a cached digest was made from. A run that changed since (a late span
// reopened it, a re-uploaded span closed) has another version, and its cached
// digest is not used.
struct RunVersion {
  int64_t updated_unix_ms = 0;
  int64_t event_count = 0;
  int32_t closed_worker_count = 0;

  static RunVersion Of(const v1::StoredRun& run);
  bool operator==(const RunVersion&) const = default;
};

// A run as the differ asks for it: its groupings and the ranks reduced (all
// when empty).
struct RunKey {
  std::string run;
  v1::Grouping operator_grouping = v1::GROUPING_UNSPECIFIED;
  v1::Grouping kernel_grouping = v1::GROUPING_UNSPECIFIED;
  std::vector<int32_t> ranks;

  bool operator==(const RunKey&) const = default;
  template <typename H>
  friend H AbslHashValue(H h, const RunKey& key) {
    return H::combine(std::move(h), key.run, key.operator_grouping,
                      key.kernel_grouping, key.ranks);
  }
};

struct DigestCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t entries = 0;
  int64_t bytes = 0;
};

// Least recently used first out, bounded by the digests' serialized size.
// Thread-safe.
class DigestCache {
 public:
  explicit DigestCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  // The digest cached for `key` at `version`, else null (counted as a miss).
  std::shared_ptr<const v1::RunDigest> Find(const RunKey& key,
                                            const RunVersion& version)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The digest cached for `key` at whatever version, for when the store
  // cannot be asked.
  std::shared_ptr<const v1::RunDigest> FindAnyVersion(const RunKey& key)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Replaces what `key` held. A digest larger than the whole cache is not
  // kept.
  void Insert(const RunKey& key, const RunVersion& version,
              std::shared_ptr<const v1::RunDigest> digest)
      ABSL_LOCKS_EXCLUDED(mu_);
  DigestCacheStats stats() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Entry {
    RunKey key;
    RunVersion version;
    std::shared_ptr<const v1::RunDigest> digest;
    size_t bytes = 0;
  };
  using Lru = std::list<Entry>;  // front = most recently used

  void EraseLocked(Lru::iterator it) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t max_bytes_;
  mutable absl::Mutex mu_;
  Lru lru_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<RunKey, Lru::iterator> index_ ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t hits_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t misses_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SERVICE_DIGEST_CACHE_H_
