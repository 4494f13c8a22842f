// `profdiff diff --format html` and the differ's web UI: one self-contained
// page (inline CSS, script and data, SVG charts drawn by the script, nothing
// fetched from a network) with the overview, the module diff on a logical
// timeline with zoom and breadcrumbs, the execution comparison and difference
// charts, sortable and filterable operator and kernel tables that follow the
// selected module, and the per-rank step times. The page's files are
// report/html/report.{html,css,js}.
#ifndef PROFDIFF_REPORT_HTML_REPORT_H_
#define PROFDIFF_REPORT_HTML_REPORT_H_

#include <string>

#include "profdiff/v1/diff.pb.h"

namespace profdiff::report {

// How a page is served. A file written by the CLI takes the defaults.
struct PageOptions {
  // Written as nonce="..." on every <script> element, for a
  // Content-Security-Policy that allows only the page's own scripts.
  std::string script_nonce;
  // Trusted HTML put first in <body> (the web UI's navigation).
  std::string header_html;
};

// The two diffs a report page is made of, from the options a user asked for:
// `page` holds every view and every row (the page sorts, filters and cuts its
// tables itself, and they must agree with the per-module tables), the
// per-module tables and the per-rank rows; `other` the module, operator and
// kernel tables for the page's group-by toggle, to be diffed with the other
// groupings (OtherOperatorGrouping, OtherKernelGrouping).
struct HtmlReportDiffs {
  v1::DiffOptions page;
  v1::DiffOptions other;
};
HtmlReportDiffs HtmlReportOptions(v1::DiffOptions asked);
// NAME <-> NAME_AND_SHAPE (UNSPECIFIED is NAME).
v1::Grouping OtherOperatorGrouping(v1::Grouping grouping);
// NAME <-> NAME_AND_OP (UNSPECIFIED is NAME).
v1::Grouping OtherKernelGrouping(v1::Grouping grouping);

// ` nonce="N"`, or nothing without a nonce.
std::string NonceAttribute(const PageOptions& page);

// `report` should be made with options.node_tables so the tables can follow the
// selection; `other_grouping` (may be null) feeds the page's group-by toggle.
std::string RenderHtmlReport(const v1::DiffReport& report,
                             const v1::DiffReport* other_grouping,
                             const PageOptions& page = {});

}  // namespace profdiff::report

#endif  // PROFDIFF_REPORT_HTML_REPORT_H_
