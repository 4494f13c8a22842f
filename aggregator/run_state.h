// A run's state follows from its spans (it is never stored, so no crash leaves it stale):
// OPEN while spans are expected, COMPLETE once world_size workers have closed spans and none is
// open, PARTIAL after an idle timeout without that. A late span makes it OPEN again.
#ifndef PROFDIFF_AGGREGATOR_RUN_STATE_H_
#define PROFDIFF_AGGREGATOR_RUN_STATE_H_

#include <cstdint>

#include <absl/time/time.h>

#include "profdiff/v1/run_store.pb.h"

namespace profdiff::aggregator {

struct RunActivity {
  int32_t world_size = 1;          // the largest world_size a worker reported
  int32_t closed_workers = 0;      // workers with at least one closed span
  int32_t open_spans = 0;          // spans opened and neither closed nor damaged
  absl::Time last_activity;        // last span opened, chunk stored or span closed
};

v1::RunState RunStateOf(const RunActivity& activity, absl::Time now, absl::Duration partial_after);

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_RUN_STATE_H_
