#include "report/multi_diff_page.h"

#include <absl/strings/str_format.h>

#include "base/number_format.h"
#include "base/str_cat.h"
#include "differ/display_text.h"
#include "report/html_escape.h"
#include "report/overview_cells.h"

namespace profdiff::report {
namespace {

using differ::DisplayText;

std::string RunLabel(size_t k) { return base::StrCat("run ", k + 1); }

constexpr char kMultiPageStyle[] = R"(
body { font: 14px system-ui, sans-serif; margin: 16px; color: #1d2127; }
h1 { font-size: 20px; margin: 0 0 8px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 8px 0 16px; }
th, td { padding: 3px 8px; border-bottom: 1px solid #e3e6ea; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
td.sig { font-weight: 600; }
nav button { font: inherit; padding: 4px 12px; margin-right: 6px; border: 1px solid #c9ced6;
             background: #f7f8fa; border-radius: 4px; cursor: pointer; }
nav button.shown { background: #2a5db0; color: #fff; border-color: #2a5db0; }
iframe { width: 100%; height: calc(100vh - 80px); border: 1px solid #e3e6ea; margin-top: 8px; }
)";

constexpr char kMultiPageScript[] = R"(
for (const b of document.querySelectorAll("nav button")) {
  b.addEventListener("click", () => {
    for (const o of document.querySelectorAll("nav button")) o.classList.toggle("shown", o === b);
    for (const f of document.querySelectorAll("iframe"))
      f.hidden = f.dataset.run !== b.dataset.run;
  });
}
)";

}  // namespace

std::string RenderMultiDiffHtml(const std::vector<v1::DiffReport>& reports,
                                const std::vector<std::string>& pair_pages,
                                const PageOptions& page) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  const std::string baseline =
      reports.empty() ? std::string() : reports.front().baseline().run();
  base::StrAppend(&out, "<title>profdiff: ", HtmlEscape(baseline), " against ",
                  reports.size(), " runs</title><style>", kMultiPageStyle,
                  "</style></head><body>\n", page.header_html, "<h1>",
                  HtmlEscape(baseline), " against ", reports.size(),
                  " runs</h1>\n");
  // The overview side by side.
  out += "<table id=\"overview\"><thead><tr><th>Metric</th><th>Baseline</th>";
  for (size_t k = 0; k < reports.size(); ++k) {
    base::StrAppend(&out, "<th>", HtmlEscape(reports[k].experimental().run()),
                    "</th><th>&Delta; ", k + 1, "</th>");
  }
  out += "</tr></thead><tbody>";
  if (!reports.empty()) {
    for (const v1::OverviewRow& first : reports.front().overview().rows()) {
      base::StrAppend(&out, "<tr><td>", HtmlEscape(DisplayText(first.metric())),
                      "</td><td>", HtmlEscape(OverviewCell(first, false)),
                      "</td>");
      for (const v1::DiffReport& report : reports) {
        const v1::OverviewRow* row = nullptr;
        for (const v1::OverviewRow& r : report.overview().rows()) {
          if (r.metric() == first.metric()) row = &r;
        }
        if (row == nullptr) {
          out += "<td>-</td><td></td>";
          continue;
        }
        const bool shown = !IsTextRow(*row) && !row->baseline_missing() &&
                           !row->experimental_missing();
        const std::string delta =
            !shown ? ""
            : row->unit() == v1::VALUE_UNIT_FRACTION
                ? absl::StrFormat("%+.1f pp", 100 * row->delta())
                : base::SignedPercent(row->delta_pct(), row->baseline(),
                                      row->experimental());
        base::StrAppend(&out, "<td>", HtmlEscape(OverviewCell(*row, true)),
                        "</td><td",
                        row->noise().significant() ? " class=\"sig\"" : "", ">",
                        HtmlEscape(delta), "</td>");
      }
      out += "</tr>";
    }
  }
  out += "</tbody></table>\n<nav>";
  for (size_t k = 0; k < reports.size(); ++k) {
    base::StrAppend(&out, "<button data-run=\"", k, "\"",
                    k == 0 ? " class=\"shown\"" : "", ">", RunLabel(k), ": ",
                    HtmlEscape(reports[k].experimental().run()), "</button>");
  }
  out += "</nav>\n";
  // Each pair's own page, whole, in a frame: its styles and script stay its
  // own.
  for (size_t k = 0; k < pair_pages.size(); ++k) {
    base::StrAppend(&out, "<iframe data-run=\"", k, "\" title=\"",
                    HtmlEscape(reports[k].experimental().run()),
                    " against the baseline\"", k == 0 ? "" : " hidden",
                    " srcdoc=\"", HtmlEscape(pair_pages[k]), "\"></iframe>\n");
  }
  base::StrAppend(&out, "<script", NonceAttribute(page), ">", kMultiPageScript,
                  "</script></body></html>\n");
  return out;
}

}  // namespace profdiff::report
