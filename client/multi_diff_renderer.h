// `profdiff diff BASE EXP1 EXP2 ...` printed (issue 48, item 3): the header
// and "What changed" of each run against the baseline, then tables with the
// baseline's value and a delta column per run (overview, modules, operators,
// kernels). The HTML page is report/multi_diff_page.h.
#ifndef PROFDIFF_CLIENT_MULTI_DIFF_RENDERER_H_
#define PROFDIFF_CLIENT_MULTI_DIFF_RENDERER_H_

#include <string>
#include <vector>

#include "client/diff_renderer.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::client {

// `reports[k]`: run k+1 against the baseline (all with the same baseline).
// Rows of the operator, kernel and module tables are the union over the runs,
// the largest |delta| in any run first, report.options().top() of them (0:
// every row).
std::string RenderMultiDiffText(const std::vector<v1::DiffReport>& reports,
                                const DiffRenderOptions& options);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_MULTI_DIFF_RENDERER_H_
