// Operator and kernel diffs (issue "Differ core", views 3 and 4): rows keyed by
// name (or name + input shapes / launching op, as the profiles were grouped),
// both sides' reduced values (normalised and averaged over ranks), deltas, a
// change class and the noise of the compared column.
#ifndef PROFDIFF_DIFFER_TABLE_DIFF_H_
#define PROFDIFF_DIFFER_TABLE_DIFF_H_

#include <vector>

#include <google/protobuf/repeated_ptr_field.h>

#include "differ/noise.h"
#include "differ/side.h"
#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/digest.pb.h"

namespace profdiff::differ {

// A side's reduced table (analysis/run_digest.h): the whole run's, or a module
// node's; nullptr where the side has none (a node it never ran).
using OperatorTables =
    const google::protobuf::RepeatedPtrField<v1::DigestOperatorRow>*;
using KernelTables =
    const google::protobuf::RepeatedPtrField<v1::DigestKernelRow>*;

// Fills a row's delta and delta_pct from its baseline and experimental values.
void SetDeltas(v1::OperatorDiff& row);
void SetDeltas(v1::KernelDiff& row);
void SetDeltas(v1::MemoryRowDiff& row);
// The column an operator row's change is about: device time where there is any
// (docs/semantics.md §7's rule for modules), host time otherwise.
v1::OperatorCompared ComparedOperatorColumn(const v1::OperatorValues& a,
                                            const v1::OperatorValues& b);

// Rows in first-seen order (the baseline's, then the experimental's new
// ones).
std::vector<v1::OperatorDiff> DiffOperators(const Side& a,
                                            OperatorTables a_table,
                                            const Side& b,
                                            OperatorTables b_table,
                                            const ChangeThreshold& threshold);

std::vector<v1::KernelDiff> DiffKernels(const Side& a, KernelTables a_table,
                                        const Side& b, KernelTables b_table,
                                        const ChangeThreshold& threshold);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_TABLE_DIFF_H_
