// Turns the paths a user gives into a RunProfile: a trace file is one worker; a
// run folder holds one file per worker span
// (`<worker>.<ts>.pt.trace.json[.gz]`, several files of one worker are its
// spans). Workers are read and analysed in parallel.
#ifndef PROFDIFF_ANALYSIS_RUN_LOADER_H_
#define PROFDIFF_ANALYSIS_RUN_LOADER_H_

#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include "analysis/deferred_node_tables.h"
#include "analysis/worker_profile.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::analysis {

// One worker's files, in span order.
struct WorkerFiles {
  std::string worker_name;
  std::vector<std::string> paths;
  bool from_folder = false;  // every path was found in a folder, none named
};

// Groups the trace files under `paths` by worker. NotFound when a path does not
// exist or a folder holds no trace file.
absl::StatusOr<std::vector<WorkerFiles>> FindWorkerFiles(
    const std::vector<std::string>& paths);

// Reads and analyses every worker; the run is named after the folder (or file)
// given first. Errors name the file that failed.
absl::StatusOr<v1::RunProfile> LoadRun(const std::vector<std::string>& paths,
                                       const analysis::ProfileOptions& options);

// The profile options `--group-by name|shape` and `--kernels-by name|op` ask
// for.
absl::StatusOr<ProfileOptions> ParseProfileOptions(
    const std::string& group_by, const std::string& kernels_by);

// LoadRun for several runs at once; all their workers share one thread pool.
absl::StatusOr<std::vector<v1::RunProfile>> LoadRuns(
    const std::vector<std::vector<std::string>>& runs,
    const analysis::ProfileOptions& options);

// LoadRuns once per entry of `options` (one profile of each run per grouping),
// reading every trace file once: the HTML report's two groupings cost one read.
// With `deferred`, (*deferred)[options][run] holds the module-node tables of
// the workers whose profiles were built without them, by rank
// (analysis/deferred_node_tables.h): for a diff that reads few nodes' tables.
absl::StatusOr<std::vector<std::vector<v1::RunProfile>>>
LoadRunsWithEachOptions(
    const std::vector<std::vector<std::string>>& runs,
    const std::vector<ProfileOptions>& options,
    std::vector<std::vector<DeferredRunTables>>* deferred = nullptr);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_RUN_LOADER_H_
