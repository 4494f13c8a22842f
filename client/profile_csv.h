// A RunProfile as CSV tables that load (issue 45, item 4), as `profdiff show
// --format csv` writes them: one table per view, each row led by its worker's
// name and rank. Columns are the proto's field paths joined by '_'
// (per_step.host_total_us -> per_step_host_total_us), numbers plain numbers
// in the unit their name says, booleans true/false, a value the trace did not
// record an empty cell. Both the totals and the per-step values are columns
// (as in JSON), whatever --normalize says.
//
// Views (the names `--view` takes and -o DIR/ writes): overview (a row per
// worker: its mean step and GPU metrics), steps, operators, kernels, modules
// (the tree flattened: depth, index_path, path), memory (a row per worker and
// device).
#ifndef PROFDIFF_CLIENT_PROFILE_CSV_H_
#define PROFDIFF_CLIENT_PROFILE_CSV_H_

#include <set>
#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include "client/csv_output.h"
#include "client/csv_table.h"
#include "client/profile_renderer.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::client {

// The CSV tables of `views` (kAll: every view), in order. InvalidArgument
// naming a view that has no CSV table.
absl::StatusOr<std::vector<std::string>> ProfileCsvTables(
    const std::set<ProfileView>& views);

// The tables named `tables` (ProfileCsvTables names) of `run`, after
// ApplyRowControls and AddPerStepValues, in that order. InvalidArgument for an
// unknown name.
absl::StatusOr<std::vector<CsvFile>> RenderRunProfileCsv(
    const v1::RunProfile& run, const std::vector<std::string>& tables);

// The columns of a mean step: StepStats without its id and start times (the
// overview here, the ranks table of a diff).
std::vector<CsvField<v1::StepStats>> MeanStepCsvFields();

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_PROFILE_CSV_H_
