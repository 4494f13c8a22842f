// `--sort`, `--filter` and `--top` on the rows of a table: a profile's
// operators and kernels (`profdiff show`), the operator, kernel and HTA diffs
// (`profdiff diff` and the Differ service). One implementation and one column
// vocabulary for both commands.
//
// Design:
// 1. Each table is described by its columns: a name, the spellings it also
//    answers to, an accessor reading the row's sort key (a number, or a text
//    compared bytewise) and a default direction. --sort names a column and the
//    rows sort stably by it; an unknown name is InvalidArgument listing them.
// 2. Names are the proto fields, units included: operators `calls`,
//    `host_self_us`, `host_total_us`, `device_self_us`, `device_total_us`;
//    kernels `calls`, `total_us`, `mean_us`, `min_us`, `max_us`; and `name`.
//    The names `show` used before (`host_total`, `total`, `max`, ...) are
//    aliases.
// 3. A diff has each value per side: a `baseline_`, `experimental_`, `delta_`
//    or `delta_pct_` prefix, none meaning `delta_` (`host_total_us` is
//    `delta_host_total_us`, in `show` the row's own value); aliases take the
//    prefixes too. Operator and kernel diffs also sort by `change`, by the word
//    printed. HTA rows sort by their own columns (docs/semantics.md §6).
// 4. Numbers sort largest first, deltas and delta percentages by magnitude;
//    `name` and `change` A to Z.
// 5. Without --sort, a diff puts significant rows first, then those with the
//    largest |delta| of the compared column, then names A to Z; a profile's
//    tables and HTA rows keep their order.
// 6. --filter (base/name_filter.h) keeps the rows whose name matches, then
//    --top keeps the first N.
#ifndef PROFDIFF_DIFFER_ROW_ORDER_H_
#define PROFDIFF_DIFFER_ROW_ORDER_H_

#include <string>
#include <string_view>

#include <absl/status/status.h>
#include <google/protobuf/repeated_ptr_field.h>

#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::differ {

// What --sort, --filter and --top ask of a table.
struct RowControls {
  std::string sort;    // a column name or alias; "" = the default order
  std::string filter;  // RE2 on row names; "" = every row
  int top = 0;         // rows kept after sorting; <= 0 = every row

  static RowControls Of(const v1::DiffOptions& options);
};

// Filters, sorts and cuts `rows` in place. InvalidArgument for a filter that
// does not compile, or a sort column the table does not have (the message
// lists its columns).
absl::Status OrderRows(
    const RowControls& controls,
    google::protobuf::RepeatedPtrField<v1::OperatorStats>& rows);
absl::Status OrderRows(
    const RowControls& controls,
    google::protobuf::RepeatedPtrField<v1::KernelStats>& rows);
absl::Status OrderRows(
    const RowControls& controls,
    google::protobuf::RepeatedPtrField<v1::OperatorDiff>& rows);
absl::Status OrderRows(
    const RowControls& controls,
    google::protobuf::RepeatedPtrField<v1::KernelDiff>& rows);
absl::Status OrderRows(const RowControls& controls,
                       google::protobuf::RepeatedPtrField<v1::HtaRow>& rows);

// The controls for a report's operator diff and its kernel diff: one --sort may
// name a column of either; a column only one of them has sorts that one, and
// the other keeps its default order. A column neither has stays, to be
// refused.
RowControls OperatorDiffControls(const v1::DiffOptions& options);
RowControls KernelDiffControls(const v1::DiffOptions& options);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_ROW_ORDER_H_
