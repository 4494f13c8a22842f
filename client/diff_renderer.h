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
  // table: the terminal's width that lines fit where they can (cells cut,
  // columns left out); 0 (--wide): every column, lines as long as they get.
  size_t line_width = 0;
};

// The width `profdiff diff` fits its tables to: $COLUMNS when it is a number
// >= 40, else the terminal's (standard output a tty), else 120.
size_t TerminalWidth();

// "What changed" as a numbered list, and a side's header line, as the table
// prints them (for the several-run report too).
std::string DiffFindingsText(const v1::DiffReport& report, size_t line_width);
std::string DiffSideLine(const char* label, const v1::RunSummary& run,
                         size_t line_width);

absl::StatusOr<std::string> RenderDiffReport(const v1::DiffReport& report,
                                             const DiffRenderOptions& options);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_DIFF_RENDERER_H_
