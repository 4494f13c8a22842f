#include "aggregator/run_state.h"

namespace profdiff::aggregator {

v1::RunState RunStateOf(const RunActivity& activity, absl::Time now, absl::Duration partial_after) {
  if (activity.open_spans == 0 && activity.closed_workers >= activity.world_size) {
    return v1::RUN_STATE_COMPLETE;
  }
  if (now - activity.last_activity >= partial_after) return v1::RUN_STATE_PARTIAL;
  return v1::RUN_STATE_OPEN;
}

}  // namespace profdiff::aggregator
