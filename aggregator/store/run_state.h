// A run's state follows from its spans (it is never stored, so no crash leaves
// it stale): OPEN while spans are expected, COMPLETE once every rank
// 0..world_size-1 has a closed span and none is open, PARTIAL after an idle
// timeout without that. A late span makes it OPEN again. Ranks are counted
// once: two workers claiming one rank do not stand in for a missing one.
#ifndef PROFDIFF_AGGREGATOR_STORE_RUN_STATE_H_
#define PROFDIFF_AGGREGATOR_STORE_RUN_STATE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <absl/time/time.h>

#include "profdiff/v1/run_store.pb.h"

namespace profdiff::aggregator {

struct RunActivity {
  int32_t world_size = 1;    // the largest world_size a worker reported
  int32_t closed_ranks = 0;  // distinct ranks with at least one closed span
  int32_t open_spans = 0;    // spans opened and neither closed nor damaged
  absl::Time last_activity;  // last span opened, chunk stored or span closed
};

// The distinct ranks with a closed span, and which workers hold each (contract:
// a rank stored by two workers counts once and is a warning).
class ClosedRanks {
 public:
  void Add(int32_t rank, const std::string& worker_key) {
    workers_of_rank_[rank].push_back(worker_key);
  }
  int32_t count() const {
    return static_cast<int32_t>(workers_of_rank_.size());
  }
  // One warning per rank held by more than one worker, naming them.
  void AddWarnings(v1::StoredRun& run) const;
  // The ranks, ascending, as StoredRun.closed_ranks.
  void AddRanks(v1::StoredRun& run) const;

 private:
  std::map<int32_t, std::vector<std::string>> workers_of_rank_;
};

v1::RunState RunStateOf(const RunActivity& activity, absl::Time now,
                        absl::Duration partial_after);

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_STORE_RUN_STATE_H_
