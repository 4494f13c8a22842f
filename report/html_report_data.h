// The data the HTML report's page reads: a compact JSON document built from the
// DiffReport (and, for the page's group-by toggle, the operator and kernel
// diffs of the other grouping).
//
// Design:
// 1. Rows are arrays, not objects, and every name goes through one string
// table, so a report of
//    ~1k modules with per-node tables (tens of thousands of rows) stays a few
//    MB and parses in tens of milliseconds. The page derives deltas and
//    percentages from the two sides.
// 2. Every `<` is written as \u003c, so no name can end the <script> element
// that holds it.
// 3. The layout of each row is written into the document (`layout`), next to
// the rows, so the
//    page and this file share one description of the columns.
// 4. A module node's tables are `t`; the other grouping's are `u`, left out
//    where they are the same text as `t` (null: the other grouping has none).
#ifndef PROFDIFF_REPORT_HTML_REPORT_DATA_H_
#define PROFDIFF_REPORT_HTML_REPORT_DATA_H_

#include <string>

#include "profdiff/v1/diff.pb.h"

namespace profdiff::report {

// `other_grouping` (may be null): the same diff with the other operator and
// kernel groupings; only its tables are used.
std::string HtmlReportData(const v1::DiffReport& report,
                           const v1::DiffReport* other_grouping);

}  // namespace profdiff::report

#endif  // PROFDIFF_REPORT_HTML_REPORT_DATA_H_
