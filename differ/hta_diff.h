// `--compare hta`: HTA's TraceDiff.compare_traces and ops_diff reproduced from
// the profiles' per-step HTA tables (docs/semantics.md §6): by default the
// lowest rank and the lowest step of each side, rows grouped by name, counts
// and Σ durations summed over the chosen ranks and steps.
#ifndef PROFDIFF_DIFFER_HTA_DIFF_H_
#define PROFDIFF_DIFFER_HTA_DIFF_H_

#include <string>
#include <string_view>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::differ {

// Fills report.hta_rows (by name) and report.hta_ops_diff.
absl::Status DiffHta(const v1::RunProfile& baseline,
                     const v1::RunProfile& experimental,
                     const v1::DiffOptions& options, v1::DiffReport& report);

// HTA's short name: template and argument lists removed, "->" dropped, last
// word kept.
std::string HtaShortName(std::string_view name);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_HTA_DIFF_H_
