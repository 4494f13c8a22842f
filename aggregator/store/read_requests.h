// How the store reads what a RunStore request asks for: the page size of a
// listing and the profile options of a GetProfile request.
#ifndef PROFDIFF_AGGREGATOR_STORE_READ_REQUESTS_H_
#define PROFDIFF_AGGREGATOR_STORE_READ_REQUESTS_H_

#include <absl/status/statusor.h>

#include "analysis/worker_profile.h"
#include "profdiff/v1/run_store.pb.h"

namespace profdiff::aggregator {

// The page size a ListRuns request asks for (0: the default, 100);
// InvalidArgument past 1000.
absl::StatusOr<int> ListRunsPageSize(const v1::ListRunsRequest& request);

// The profile options a GetProfile request asks for, and whether they are the
// ones profiles are stored with (grouping by name), so a stored profile answers
// it.
struct RequestedProfile {
  analysis::ProfileOptions options;
  bool stored_options = false;
};
RequestedProfile ProfileOptionsOf(const v1::GetProfileRequest& request);

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_STORE_READ_REQUESTS_H_
