#include "client/html_report.h"

#include <string_view>

#include "client/html_report_data.h"

namespace profdiff::client {
namespace html_assets {
extern const std::string_view kReportHtml;
extern const std::string_view kReportCss;
extern const std::string_view kReportJs;
}  // namespace html_assets

namespace {

// Replaces the one `marker` in `page` with `text`.
void Fill(std::string& page, std::string_view marker, std::string_view text) {
  const size_t at = page.find(marker);
  if (at != std::string::npos) page.replace(at, marker.size(), text);
}

}  // namespace

std::string RenderHtmlReport(const v1::DiffReport& report,
                             const v1::DiffReport* other_grouping) {
  std::string page(html_assets::kReportHtml);
  // The data last: it is the largest part, and markers inside it must not be
  // replaced.
  Fill(page, "/*@STYLE@*/", html_assets::kReportCss);
  Fill(page, "/*@SCRIPT@*/", html_assets::kReportJs);
  Fill(page, "@DATA@", HtmlReportData(report, other_grouping));
  return page;
}

}  // namespace profdiff::client
