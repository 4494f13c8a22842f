// Operator and kernel diffs (issue "Differ core", views 3 and 4): rows keyed by
// name (or name + input shapes / launching op, as the profiles were grouped),
// both sides' values normalised and averaged over ranks, deltas, a change class
// and the noise of the compared column.
#ifndef PROFDIFF_DIFFER_TABLE_DIFF_H_
#define PROFDIFF_DIFFER_TABLE_DIFF_H_

#include <vector>

#include <google/protobuf/repeated_ptr_field.h>

#include "differ/noise.h"
#include "differ/side.h"
#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::differ {

// Per worker of a side, the table to read (nullptr where the worker has none,
// e.g. a module node it never ran).
using OperatorTables =
    std::vector<const google::protobuf::RepeatedPtrField<v1::OperatorStats>*>;
using KernelTables =
    std::vector<const google::protobuf::RepeatedPtrField<v1::KernelStats>*>;

// Fills a row's delta and delta_pct from its baseline and experimental values.
void SetDeltas(v1::OperatorDiff& row);
void SetDeltas(v1::KernelDiff& row);
void SetDeltas(v1::MemoryRowDiff& row);
// The column an operator row's change is about: device time where there is any
// (SEMANTICS.md §7's rule for modules), host time otherwise.
v1::OperatorCompared ComparedOperatorColumn(const v1::OperatorValues& a,
                                            const v1::OperatorValues& b);

std::vector<v1::OperatorDiff> DiffOperators(const Side& a,
                                            const OperatorTables& a_tables,
                                            const Side& b,
                                            const OperatorTables& b_tables,
                                            const ChangeThreshold& threshold);

std::vector<v1::KernelDiff> DiffKernels(const Side& a,
                                        const KernelTables& a_tables,
                                        const Side& b,
                                        const KernelTables& b_tables,
                                        const ChangeThreshold& threshold);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_TABLE_DIFF_H_
