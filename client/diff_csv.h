// A DiffReport as CSV tables that load (issue 45, item 4): one plain table per
// view, straight from the proto. Columns are the proto's field paths joined by
// '_' (baseline.host_total_us -> baseline_host_total_us, the names --sort
// takes); where the proto leaves a unit out, the column adds it (a Noise's
// interval: noise_ci_low_us). Numbers are plain numbers in the unit their name
// says, booleans true/false, a value a side does not have an empty cell.
//
// Views and their tables (the names `--view` takes and -o DIR/ writes):
//   findings, overview, modules (the tree flattened: depth, index_path, path),
//   operators, kernels, ranks, comm (comm_by_collective, comm_collectives,
//   comm_ranks, comm_stragglers), memory (memory_devices, memory_holders,
//   memory_operators, memory_modules); `--compare hta` has one, hta, with the
//   columns of HTA's compare_traces.
#ifndef PROFDIFF_CLIENT_DIFF_CSV_H_
#define PROFDIFF_CLIENT_DIFF_CSV_H_

#include <climits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/status/statusor.h>

#include "client/csv_output.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::client {

// HTA mode's one table.
inline constexpr std::string_view kHtaCsvTable = "hta";

// Every view with CSV tables, in the order -o DIR/ writes them.
std::vector<v1::DiffView> DiffCsvViews();

// The tables of `view`, in order: its own name for a view of one table.
std::vector<std::string> DiffCsvTables(v1::DiffView view);

// The view of the table named `name` ("comm_ranks": communication); nullopt
// for no table of that name.
std::optional<v1::DiffView> DiffViewOfCsvTable(std::string_view name);

struct DiffCsvOptions {
  // Levels of the module tree below the node shown (--depth; default every
  // one). --filter and --top come from the report's options, as the table's.
  int module_depth = INT_MAX;
};

// The tables named `tables` (DiffCsvTables names, or kHtaCsvTable) of
// `report`, in that order. InvalidArgument for an unknown name or a --filter
// that does not compile.
absl::StatusOr<std::vector<CsvFile>> RenderDiffCsv(
    const v1::DiffReport& report, const std::vector<std::string>& tables,
    const DiffCsvOptions& options);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_DIFF_CSV_H_
