#include "report/html_report.h"

#include <string_view>

#include "base/str_cat.h"
#include "report/html_escape.h"
#include "report/html_report_data.h"

namespace profdiff::report {
namespace html_assets {
extern const std::string_view kReportHtml;
extern const std::string_view kReportCss;
extern const std::string_view kReportJs;
}  // namespace html_assets

namespace {

// Replaces the first `marker` in `page` with `text`.
void Fill(std::string& page, std::string_view marker, std::string_view text) {
  const size_t at = page.find(marker);
  if (at != std::string::npos) page.replace(at, marker.size(), text);
}

// Replaces every `marker` in `page` with `text`.
void FillAll(std::string& page, std::string_view marker,
             std::string_view text) {
  for (size_t at = page.find(marker); at != std::string::npos;
       at = page.find(marker, at + text.size())) {
    page.replace(at, marker.size(), text);
  }
}

}  // namespace

HtmlReportDiffs HtmlReportOptions(v1::DiffOptions asked) {
  HtmlReportDiffs diffs;
  asked.set_node_tables(true);
  asked.set_per_rank(
      true);  // the page shows ranks only when a side has several
  asked.clear_views();
  asked.clear_sort();
  asked.clear_filter();
  asked.clear_top();
  diffs.other = asked;
  diffs.other.clear_views();
  diffs.other.add_views(v1::DIFF_VIEW_MODULES);
  diffs.other.add_views(v1::DIFF_VIEW_OPERATORS);
  diffs.other.add_views(v1::DIFF_VIEW_KERNELS);
  diffs.other.set_per_rank(false);
  diffs.page = std::move(asked);
  return diffs;
}

v1::Grouping OtherOperatorGrouping(v1::Grouping grouping) {
  return grouping == v1::GROUPING_NAME_AND_SHAPE ? v1::GROUPING_NAME
                                                 : v1::GROUPING_NAME_AND_SHAPE;
}

v1::Grouping OtherKernelGrouping(v1::Grouping grouping) {
  return grouping == v1::GROUPING_NAME_AND_OP ? v1::GROUPING_NAME
                                              : v1::GROUPING_NAME_AND_OP;
}

std::string NonceAttribute(const PageOptions& page) {
  if (page.script_nonce.empty()) return "";
  return base::StrCat(" nonce=\"", HtmlEscape(page.script_nonce), "\"");
}

std::string RenderHtmlReport(const v1::DiffReport& report,
                             const v1::DiffReport* other_grouping,
                             const PageOptions& page) {
  std::string out(html_assets::kReportHtml);
  // The small markers first, then the style and script, and the data last:
  // it is the largest part, and markers inside it must not be replaced.
  FillAll(out, "@NONCE@", NonceAttribute(page));
  Fill(out, "<!--@HEADER@-->", page.header_html);
  Fill(out, "/*@STYLE@*/", html_assets::kReportCss);
  Fill(out, "/*@SCRIPT@*/", html_assets::kReportJs);
  Fill(out, "@DATA@", HtmlReportData(report, other_grouping));
  return out;
}

}  // namespace profdiff::report
