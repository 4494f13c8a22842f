// `profdiff diff --format html`: one self-contained page (inline CSS, script
// and data, SVG charts drawn by the script, nothing fetched from a network)
// with the overview, the module diff on a logical timeline with zoom and
// breadcrumbs, the execution comparison and difference charts, sortable and
// filterable operator and kernel tables that follow the selected module, and
// the per-rank step times. The page's files are
// client/html/report.{html,css,js}.
#ifndef PROFDIFF_CLIENT_HTML_REPORT_H_
#define PROFDIFF_CLIENT_HTML_REPORT_H_

#include <string>

#include "profdiff/v1/diff.pb.h"

namespace profdiff::client {

// `report` should be made with options.node_tables so the tables can follow the
// selection; `other_grouping` (may be null) feeds the page's group-by toggle.
std::string RenderHtmlReport(const v1::DiffReport& report,
                             const v1::DiffReport* other_grouping);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_HTML_REPORT_H_
