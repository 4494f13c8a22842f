// One baseline against several runs as one self-contained page (issue 48,
// item 3): the overview side by side, and each pair's report in a frame of its
// own, one shown at a time.
#ifndef PROFDIFF_REPORT_MULTI_DIFF_PAGE_H_
#define PROFDIFF_REPORT_MULTI_DIFF_PAGE_H_

#include <string>
#include <vector>

#include "profdiff/v1/diff.pb.h"
#include "report/html_report.h"

namespace profdiff::report {

// `reports[k]`: run k+1 against the baseline; `pair_pages[k]` its
// RenderHtmlReport page (made with the same `page.script_nonce`).
std::string RenderMultiDiffHtml(const std::vector<v1::DiffReport>& reports,
                                const std::vector<std::string>& pair_pages,
                                const PageOptions& page = {});

}  // namespace profdiff::report

#endif  // PROFDIFF_REPORT_MULTI_DIFF_PAGE_H_
