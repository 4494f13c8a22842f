// The differ: two runs' profiles in, a DiffReport out (overview, aligned module
// tree, operator and kernel diffs with noise, per-rank steps, or HTA's
// compare). It does no I/O, so the CLI runs it in-process and the Differ
// service serves the same code.
#ifndef PROFDIFF_DIFFER_DIFFER_H_
#define PROFDIFF_DIFFER_DIFFER_H_

#include <absl/status/statusor.h>

#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::differ {

// InvalidArgument for options that cannot apply (no such rank, step, sort
// column, bad regex); NotFound for a --path that names no node.
absl::StatusOr<v1::DiffReport> DiffRuns(const v1::RunProfile& baseline,
                                        const v1::RunProfile& experimental,
                                        const v1::DiffOptions& options);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_DIFFER_H_
