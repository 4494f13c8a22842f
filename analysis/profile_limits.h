// Bounds on what one worker's profile holds, whatever its trace: a profile must
// stay small enough to store (the 64 MiB manifest limit), to send (GetProfile,
// Diff) and to parse (protobuf's nesting limit of 100), and its build must stay
// linear in the trace's events. What goes past a bound is folded, never
// dropped: deeper module levels into the deepest node kept, rows past a table's
// bound into one "(other)" row, and the profile says so in `warnings`.
#ifndef PROFDIFF_ANALYSIS_PROFILE_LIMITS_H_
#define PROFDIFF_ANALYSIS_PROFILE_LIMITS_H_

#include <cstddef>
#include <cstdint>

#include <google/protobuf/repeated_ptr_field.h>

#include "profdiff/v1/profile.pb.h"

namespace profdiff::analysis {

// Module tree levels below the root; events nested deeper count in their
// level-64 ancestor.
inline constexpr int kMaxModuleDepth = 64;
// Module tree nodes; past it, a node's new children go into one "(other)"
// child.
inline constexpr size_t kMaxModuleNodes = 5000;
// Rows of the profile's operator table and of its kernel table.
inline constexpr size_t kMaxTableRows = 10000;
// Rows of each module node's operator and kernel tables.
inline constexpr size_t kMaxNodeTableRows = 64;
// A profile larger than this (encoded) loses its module nodes' tables, the bulk
// of a big one.
inline constexpr size_t kMaxProfileBytes = size_t{48} << 20;
// The name of the row and of the module node that hold what was folded.
inline constexpr char kOtherName[] = "(other)";

// Keeps the first `max_rows` - 1 rows (tables are sorted heaviest first) and
// folds the rest into one "(other)" row that sums them, step samples included,
// so the table has `max_rows` rows. Returns how many rows were folded (0 when
// the table fits).
size_t FoldOperatorRows(
    google::protobuf::RepeatedPtrField<v1::OperatorStats>& rows,
    size_t max_rows);
size_t FoldKernelRows(google::protobuf::RepeatedPtrField<v1::KernelStats>& rows,
                      size_t max_rows);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_PROFILE_LIMITS_H_
