// Prints a RunProfile the way `profdiff show` does: terminal tables, CSV or
// JSON, one view or all.
#ifndef PROFDIFF_CLIENT_PROFILE_RENDERER_H_
#define PROFDIFF_CLIENT_PROFILE_RENDERER_H_

#include <set>
#include <string>

#include <absl/status/statusor.h>

#include "profdiff/v1/profile.pb.h"

namespace profdiff::client {

enum class ProfileView {
  kOverview,
  kSteps,
  kOperators,
  kKernels,
  kModules,
  kMemory,
  kComm,  // the run's collectives, over all its workers
  kAll
};
enum class OutputFormat { kTable, kJson, kCsv };

struct ShowOptions {
  std::set<ProfileView> views = {ProfileView::kOverview};  // kAll: every one

  bool Shows(ProfileView view) const {
    return views.contains(view) || views.contains(ProfileView::kAll);
  }
  OutputFormat format = OutputFormat::kTable;
  int top = 0;         // rows per table; 0 = all
  std::string sort;    // operator/kernel column (differ/row_order.h); empty =
                       // the view's default
  std::string filter;  // RE2 regex on operator/kernel names
                       // (base/name_filter.h); empty = all
  // Operator, kernel and module tables per kept step, the unit `diff`
  // compares (--normalize per-step, the default), or as totals over the kept
  // steps (--normalize total). JSON carries both either way.
  bool per_step = true;
  // Tables fit this many columns where they can (TextTable::RenderText); 0:
  // every column, names whole (--wide).
  size_t line_width = 0;
};

// Parses "--view"/"--format" values; InvalidArgument lists the accepted values.
// A --view value is one view or several, comma-separated ("overview,steps").
absl::StatusOr<std::set<ProfileView>> ParseProfileViews(
    const std::string& text);
absl::StatusOr<OutputFormat> ParseOutputFormat(const std::string& text);

// Applies --filter, --sort and --top to the operator and kernel rows of every
// worker (differ/row_order.h, the rows `diff` orders too): --sort sorts the
// kernels when kernels are the only view, else the operators. InvalidArgument
// for a bad regex or an unknown sort column (the message lists the columns).
absl::Status ApplyRowControls(const ShowOptions& options, v1::RunProfile& run);

// Fills every operator, kernel and module row's `per_step` values as the
// differ takes them: its step samples summed over the worker's kept steps and
// divided by them (its totals without kept steps). A `show` value per step
// then equals the same run's `diff` baseline value.
void AddPerStepValues(v1::RunProfile& run);

// Renders `run` (after ApplyRowControls and AddPerStepValues).
absl::StatusOr<std::string> RenderRunProfile(const v1::RunProfile& run,
                                             const ShowOptions& options);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_PROFILE_RENDERER_H_
