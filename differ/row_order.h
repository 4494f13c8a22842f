// `--sort`, `--filter` and `--top` on diff rows. Columns are a value name
// ("host_total_us") with an optional side prefix: baseline_, experimental_,
// delta_ (the default) or delta_pct_; deltas sort by magnitude. Without --sort:
// significant rows first, then by |delta| of the compared column. HTA rows sort
// by their own columns (default: name, as HTA prints them).
#ifndef PROFDIFF_DIFFER_ROW_ORDER_H_
#define PROFDIFF_DIFFER_ROW_ORDER_H_

#include <absl/status/status.h>

#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {

// Whether `column` names a column of the operator / kernel diff (a --sort may
// name either).
bool IsOperatorColumn(const std::string& column);
bool IsKernelColumn(const std::string& column);

absl::Status OrderOperatorRows(
    const v1::DiffOptions& options,
    google::protobuf::RepeatedPtrField<v1::OperatorDiff>& rows);
absl::Status OrderKernelRows(
    const v1::DiffOptions& options,
    google::protobuf::RepeatedPtrField<v1::KernelDiff>& rows);
absl::Status OrderHtaRows(const v1::DiffOptions& options,
                          google::protobuf::RepeatedPtrField<v1::HtaRow>& rows);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_ROW_ORDER_H_
