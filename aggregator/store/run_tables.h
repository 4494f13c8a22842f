// A run's operator and kernel tables reduced over its workers (RunTables): the
// values the differ compares, computed where the profiles are. The local store
// reduces the profiles it holds with RunTablesOf; the ClickHouse store answers
// the same numbers with SQL aggregates (ClickHouseStore::GetRunTables) over the
// per-profile rows of its `operators` and `kernels` tables, which store each
// row's OperatorContribution / KernelContribution.
#ifndef PROFDIFF_AGGREGATOR_STORE_RUN_TABLES_H_
#define PROFDIFF_AGGREGATOR_STORE_RUN_TABLES_H_

#include <string>

#include "profdiff/v1/profile.pb.h"
#include "profdiff/v1/run_store.pb.h"

namespace profdiff::aggregator {

// The run values of every operator and kernel row of `profile`'s workers
// (RunTables' comment), rows sorted by name, then input shapes / launching
// operator.
v1::RunTables RunTablesOf(const v1::RunProfile& profile,
                          v1::Normalization normalize);

// What one stored operator (kernel) row contributes to its run value before the
// mean over workers: the worker's per-step mean of the row (its total when the
// worker kept no step), or its total. The ClickHouse store keeps these per row,
// so SQL needs only sums.
v1::OperatorValues OperatorContribution(const v1::OperatorStats& row,
                                        int kept_steps, bool per_step);
v1::KernelValues KernelContribution(const v1::KernelStats& row, int kept_steps,
                                    bool per_step);

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_STORE_RUN_TABLES_H_
