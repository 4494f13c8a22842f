// The run digests the RunStore serves (Store::GetRunDigest), kept while their
// run does not change and made ahead once a run is COMPLETE, so the differ's
// first diff of two thousand-rank runs does not wait for every profile to be
// read.
//
// Design:
// 1. An entry is keyed by the request (run, ranks, groupings) and holds for the
//    run's version (its last update, events and closed workers, as GetRun
//    says): a late span is another version. Least recently used out, bounded
//    by the digests' serialized bytes.
// 2. One build per key at a time: a request for a key being built waits for
//    that build instead of reading every profile again.
// 3. Prepare(run) queues a run (a span of it closed); one thread makes the
//    digest of all its ranks once the run is COMPLETE. The queue holds a run
//    once, however many of its spans close, and is read after a short settle,
//    so a burst of closes costs a few looks at the run. A look that finds the
//    run missing M workers is not repeated until M more spans of it closed
//    here, or a few seconds passed (closes on other replicas): each look
//    reads every span of the run, so a look per settle would cost a thousand-
//    rank upload O(ranks^2) rows read.
// 4. The store may keep digests (Store::SaveDigest: the local store's files
//    beside the run, the ClickHouse store's `digests` table): a digest is
//    read from there before it is made, and kept there once made, so replicas
//    and restarts make each run's once. One the store cannot read whole, or
//    that is another run's, key's or version's (DataLoss,
//    aggregator/store/kept_digest.h), is never served: it is logged, made
//    again and kept in its place.
// 5. A digest asked of a COMPLETE run whose last spans' profiles the store is
//    still building (Store::ProfileBuildsPending) waits for those builds
//    (from the batches kept in memory) rather than build each again from the
//    ledger, one after another: a diff asked the moment a fast thousand-rank
//    upload ended waited 6-9 s on 300 such rebuilds (issue 50).
//    A run still uploading is not waited for: its builds never end.
#ifndef PROFDIFF_AGGREGATOR_RUN_DIGESTS_H_
#define PROFDIFF_AGGREGATOR_RUN_DIGESTS_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <set>
#include <stop_token>
#include <string>
#include <thread>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/status/statusor.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

#include "aggregator/store/store.h"
#include "profdiff/v1/digest.pb.h"
#include "profdiff/v1/run_store.pb.h"

namespace profdiff::aggregator {

struct RunDigestsStats {
  int64_t hits = 0;
  int64_t builds = 0;    // digests made (requests and Prepare)
  int64_t loaded = 0;    // digests read from the store (another replica's)
  int64_t damaged = 0;   // kept digests the store found damaged: made again
  int64_t prepared = 0;  // digests Prepare made or read
  int64_t entries = 0;
  int64_t bytes = 0;
};

class RunDigests {
 public:
  // `store` must outlive this.
  RunDigests(const Store* store, size_t max_bytes);
  ~RunDigests();
  RunDigests(const RunDigests&) = delete;
  RunDigests& operator=(const RunDigests&) = delete;

  // The digest `request` asks for, cached or made (design notes 1, 2).
  // Errors: Store::GetRun's and Store::GetRunDigest's.
  absl::StatusOr<std::shared_ptr<const v1::RunDigest>> Get(
      const v1::GetRunDigestRequest& request) ABSL_LOCKS_EXCLUDED(mu_);
  // Queues `run` for a digest of all its ranks (design note 3).
  void Prepare(const std::string& run) ABSL_LOCKS_EXCLUDED(mu_);
  // Waits until no run is queued or being prepared, up to `timeout`; false on
  // timeout (tests and benchmarks).
  bool AwaitPrepared(absl::Duration timeout) ABSL_LOCKS_EXCLUDED(mu_);
  RunDigestsStats stats() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Version {
    int64_t updated_unix_ms = 0;
    int64_t event_count = 0;
    int32_t closed_workers = 0;
    bool operator==(const Version&) const = default;
  };
  struct Entry {
    std::string key;
    Version version;
    std::shared_ptr<const v1::RunDigest> digest;
    size_t bytes = 0;
  };
  using Lru = std::list<Entry>;  // front: most recently used

  static std::string KeyOf(const v1::GetRunDigestRequest& request);
  absl::StatusOr<std::shared_ptr<const v1::RunDigest>> GetOrBuild(
      const v1::GetRunDigestRequest& request, bool prepared)
      ABSL_LOCKS_EXCLUDED(mu_);
  void Insert(const std::string& key, const Version& version,
              std::shared_ptr<const v1::RunDigest> digest)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PrepareLoop(const std::stop_token& stop) ABSL_LOCKS_EXCLUDED(mu_);
  // Waits while the store builds profiles of `run` (design note 5), up to a
  // bound, or less when stopping.
  void AwaitProfileBuilds(const std::string& run) ABSL_LOCKS_EXCLUDED(mu_);
  // Waits `timeout`, or less when stopping.
  void PauseUnlessStopping(absl::Duration timeout)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Store* const store_;
  const size_t max_bytes_;
  mutable absl::Mutex mu_;
  Lru lru_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Lru::iterator> index_ ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_set<std::string> building_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> queued_ ABSL_GUARDED_BY(mu_);
  // What the last look at a run not COMPLETE found (design note 3).
  struct Looked {
    int32_t missing = 0;       // workers it lacked
    int64_t closes_since = 0;  // Prepare calls for it since
    absl::Time at;
  };
  absl::flat_hash_map<std::string, Looked> looked_ ABSL_GUARDED_BY(mu_);
  bool preparing_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  RunDigestsStats stats_ ABSL_GUARDED_BY(mu_);
  std::jthread thread_;  // last: stopped and joined first
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_RUN_DIGESTS_H_
