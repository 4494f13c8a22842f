// Prints a DiffReport: JSON (the proto, snake_case, `_us` doubles), CSV, or
// tables for a terminal (header naming both runs, warnings, overview, module
// tree, operators, kernels, per-rank steps, or HTA's rows).
#ifndef PROFDIFF_CLIENT_DIFF_RENDERER_H_
#define PROFDIFF_CLIENT_DIFF_RENDERER_H_

#include <string>

#include <absl/status/statusor.h>

#include "client/profile_renderer.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::client {

struct DiffRenderOptions {
  OutputFormat format = OutputFormat::kTable;
  int module_depth =
      3;  // table: levels of the module tree below the node shown
};

absl::StatusOr<std::string> RenderDiffReport(const v1::DiffReport& report,
                                             const DiffRenderOptions& options);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_DIFF_RENDERER_H_
