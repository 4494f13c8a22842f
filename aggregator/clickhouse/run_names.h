// The strings (name ids) of each run this replica has sent to the `names`
// table, so the workers of one run, which mostly share one model's strings,
// send each about once per replica instead of once per worker: a thousand
// workers' copies were a fifth of a thousand-rank upload's rows. A chunk
// skips a name only once a stored chunk carried it; a name still in flight
// with another chunk is sent again (a duplicate row is harmless in the
// ReplacingMergeTree), so a chunk is acknowledged only with its names
// stored. Bounded: past `max_ids` it forgets everything and names are sent
// again. Thread-safe.
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_RUN_NAMES_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_RUN_NAMES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/synchronization/mutex.h>

namespace profdiff::aggregator::clickhouse {

class RunNames {
 public:
  explicit RunNames(size_t max_ids) : max_ids_(max_ids) {}
  RunNames(const RunNames&) = delete;
  RunNames& operator=(const RunNames&) = delete;

  // Which of `ids` a chunk of `run` must carry (true: not stored yet), and
  // marks those in flight. The caller reports the chunk with Stored or
  // Failed, passing the ids it carried.
  std::vector<bool> Claim(const std::string& run,
                          const std::vector<uint64_t>& ids)
      ABSL_LOCKS_EXCLUDED(mu_);
  void Stored(const std::string& run, const std::vector<uint64_t>& ids)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The ids not stored by another chunk meanwhile are forgotten: the next
  // chunk using them carries them.
  void Failed(const std::string& run, const std::vector<uint64_t>& ids)
      ABSL_LOCKS_EXCLUDED(mu_);

  size_t ids() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  enum class State : uint8_t { kInFlight, kStored };

  const size_t max_ids_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, absl::flat_hash_map<uint64_t, State>> runs_
      ABSL_GUARDED_BY(mu_);
  size_t ids_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace profdiff::aggregator::clickhouse

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_RUN_NAMES_H_
