// Differ.Diff's work: both runs reduced over their workers, from the
// aggregator (in parallel, cached when COMPLETE), then the differ library, with
// a warning for each run that is not COMPLETE. HTA mode reads the profiles of
// the ranks it compares instead.
#ifndef PROFDIFF_DIFFER_SERVICE_STORE_DIFFER_H_
#define PROFDIFF_DIFFER_SERVICE_STORE_DIFFER_H_

#include <functional>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "differ/service/stored_runs.h"
#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/differ.pb.h"

namespace profdiff::differ {

// InvalidArgument for a run id that breaks base/id_rules.h (naming the field)
// or options the differ refuses; the store's errors otherwise (NotFound naming
// the run).
absl::StatusOr<v1::DiffReport> DiffStoredRuns(const StoredRuns& store,
                                              const v1::DiffRequest& request,
                                              absl::Time deadline);

// DiffStoredRuns with the runs from `fetch` (each called from two threads at
// once), so that the request handling runs without an aggregator
// (tests/fuzz/diff_request_fuzzer.cc).
struct RunFetcher {
  std::function<absl::StatusOr<StoredDigest>(const RunKey& key)> digest;
  std::function<absl::StatusOr<StoredProfile>(const RunKey& key)> profile;
};
absl::StatusOr<v1::DiffReport> DiffFetchedRuns(const v1::DiffRequest& request,
                                               const RunFetcher& fetch);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SERVICE_STORE_DIFFER_H_
