#include "aggregator/store/run_state.h"

#include "base/str_cat.h"

namespace profdiff::aggregator {

void ClosedRanks::AddWarnings(v1::StoredRun& run) const {
  for (const auto& [rank, keys] : workers_of_rank_) {
    if (keys.size() < 2) continue;
    std::string names;
    for (const std::string& key : keys)
      base::StrAppend(&names, names.empty() ? "" : ", ", key);
    run.add_warnings(base::StrCat(
        "rank ", rank, " is stored by ", keys.size(), " workers (", names,
        "): the run counts the rank once, and a diff refuses it (not one "
        "run)"));
  }
}

void ClosedRanks::AddRanks(v1::StoredRun& run) const {
  for (const auto& [rank, workers] : workers_of_rank_)
    run.add_closed_ranks(rank);
}

v1::RunState RunStateOf(const RunActivity& activity, absl::Time now,
                        absl::Duration partial_after) {
  if (activity.open_spans == 0 &&
      activity.closed_ranks >= activity.world_size) {
    return v1::RUN_STATE_COMPLETE;
  }
  if (now - activity.last_activity >= partial_after)
    return v1::RUN_STATE_PARTIAL;
  return v1::RUN_STATE_OPEN;
}

}  // namespace profdiff::aggregator
