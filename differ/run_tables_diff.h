// The operator and kernel diffs of two runs from their RunTables (run values
// reduced by the store), for `profdiff diff --tables-from-store`: the rows,
// values and change classes of DiffRuns' tables, without per-step samples, so
// changes are judged by the thresholds alone.
#ifndef PROFDIFF_DIFFER_RUN_TABLES_DIFF_H_
#define PROFDIFF_DIFFER_RUN_TABLES_DIFF_H_

#include <absl/status/statusor.h>

#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/run_store.pb.h"

namespace profdiff::differ {

// InvalidArgument for options that need profiles (a module path, HTA mode, the
// overview, modules or ranks views, more than one rank).
absl::Status CheckTablesFromStoreOptions(const v1::DiffOptions& options);

absl::StatusOr<v1::DiffReport> DiffRunTables(const v1::RunTables& baseline,
                                             const v1::RunTables& experimental,
                                             const v1::DiffOptions& options);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_RUN_TABLES_DIFF_H_
