#include "differ/web/web_pages.h"

#include <algorithm>
#include <cstdint>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/str_format.h>
#include <absl/time/time.h>

#include "analysis/digest_module_tree.h"
#include "analysis/digest_tables.h"
#include "analysis/run_digest.h"
#include "base/number_format.h"
#include "base/rank_ranges.h"
#include "base/str_cat.h"
#include "differ/kernel_names.h"
#include "differ/run_completeness.h"
#include "differ/web/url_text.h"
#include "report/html_escape.h"

namespace profdiff::differ::web {
namespace {

using report::HtmlEscape;

constexpr char kStyle[] = R"(
body { font: 14px system-ui, sans-serif; margin: 0; color: #1d2127; background: #fff; }
main { padding: 12px 20px; }
nav.bar { display: flex; align-items: center; gap: 16px; padding: 8px 20px; background: #1f2d3d;
          color: #fff; font-size: 14px; }
nav.bar a { color: #fff; text-decoration: none; }
nav.bar .brand { font-weight: 700; }
nav.bar form { margin-left: auto; }
nav.bar button { font: inherit; background: none; color: #cfd8e3; border: 1px solid #52657a;
                 border-radius: 4px; padding: 2px 10px; cursor: pointer; }
h1 { font-size: 20px; margin: 8px 0 12px; }
h2 { font-size: 16px; margin: 20px 0 8px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 10px; border-bottom: 1px solid #e3e6ea; text-align: right; white-space: nowrap; }
th { background: #f4f6f8; }
th.sortable { cursor: pointer; }
th.sortable::after { content: " \2195"; color: #9aa5b1; }
td.name, th.name { text-align: left; white-space: normal; max-width: 520px; overflow-wrap: anywhere; }
td.pick { text-align: center; }
.state-COMPLETE { color: #1a7f37; } .state-OPEN { color: #9a6700; } .state-PARTIAL { color: #cf222e; }
.controls { display: flex; gap: 12px; align-items: center; margin: 8px 0 12px; flex-wrap: wrap; }
.controls input[type=search] { font: inherit; padding: 4px 8px; width: 280px; }
button.primary { font: inherit; background: #2a5db0; color: #fff; border: 0; border-radius: 4px;
                 padding: 6px 14px; cursor: pointer; }
button.primary:disabled { background: #9aa5b1; cursor: default; }
.hint { color: #57606a; }
.warn { color: #9a6700; }
.error { color: #cf222e; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 4px 16px; }
dl.facts dt { color: #57606a; } dl.facts dd { margin: 0; }
)";

std::string Shell(const PageChrome& chrome, const std::string& title,
                  const std::string& body, const std::string& script) {
  std::string page = base::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, "
      "initial-scale=1\"><title>",
      HtmlEscape(title), " - profdiff</title><style>", kStyle,
      "</style></head><body>\n", NavBar(chrome, ""), "<main>\n", body,
      "</main>\n");
  if (!script.empty()) {
    base::StrAppend(&page, "<script nonce=\"", HtmlEscape(chrome.nonce), "\">",
                    script, "</script>\n");
  }
  page += "</body></html>\n";
  return page;
}

std::string TimeText(int64_t unix_ms) {
  if (unix_ms <= 0) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S UTC",
                          absl::FromUnixMillis(unix_ms), absl::UTCTimeZone());
}

std::string RunLink(const std::string& run) {
  return base::StrCat("<a href=\"/run/", PercentEncode(run), "\">",
                      HtmlEscape(run), "</a>");
}

// The runs page's script: instant filter, sorting by a column, and the
// Compare button enabled once a baseline and a run to compare are picked.
constexpr char kRunsScript[] = R"(
const rows = () => Array.from(document.querySelectorAll("#runs tbody tr"));
const filter = document.getElementById("filter");
filter.addEventListener("input", () => {
  const text = filter.value.toLowerCase();
  for (const r of rows()) r.hidden = !r.dataset.run.toLowerCase().includes(text);
});
for (const th of document.querySelectorAll("#runs th.sortable")) {
  th.addEventListener("click", () => {
    const col = th.cellIndex, numeric = th.dataset.type === "number";
    const down = th.dataset.dir !== "desc";
    th.dataset.dir = down ? "desc" : "asc";
    const key = (r) => numeric ? Number(r.cells[col].dataset.value) : r.cells[col].textContent;
    const sorted = rows().sort((a, b) => {
      const x = key(a), y = key(b);
      return (x < y ? -1 : x > y ? 1 : 0) * (down ? -1 : 1);
    });
    const body = document.querySelector("#runs tbody");
    for (const r of sorted) body.appendChild(r);
  });
}
const compare = document.getElementById("compare");
const update = () => {
  const base = document.querySelector("input[name=baseline]:checked");
  const exps = Array.from(document.querySelectorAll("input[name=experimental]:checked"));
  compare.disabled = !base || exps.length === 0;
};
document.getElementById("pick").addEventListener("change", update);
update();
)";

}  // namespace

std::string NavBar(const PageChrome& chrome, const std::string& extra_html) {
  std::string bar =
      "<nav class=\"bar\" id=\"profdiff-nav\"><a class=\"brand\" "
      "href=\"/\">profdiff</a><a href=\"/\">Runs</a>";
  bar += extra_html;
  if (chrome.signed_in) {
    bar +=
        "<form method=\"post\" action=\"/logout\"><button "
        "type=\"submit\">Sign out</button></form>";
  }
  bar += "</nav>\n";
  return bar;
}

std::string ReportHeader(const PageChrome& chrome, const std::string& baseline,
                         const std::vector<std::string>& experimental,
                         const std::string& ranks,
                         const std::string& load_groupings) {
  std::string runs =
      base::StrCat("<span id=\"diff-runs\">", RunLink(baseline), " against ");
  for (size_t k = 0; k < experimental.size(); ++k) {
    if (k > 0) runs += ", ";
    runs += RunLink(experimental[k]);
  }
  if (!ranks.empty()) {
    base::StrAppend(&runs, " (ranks ", HtmlEscape(ranks), ")");
  }
  runs += "</span>";
  if (!load_groupings.empty()) {
    // The link keeps the view the page has written into its URL since.
    base::StrAppend(
        &runs,
        "<span id=\"groupings-note\">grouped by name; the other groupings "
        "are being made: <a id=\"load-groupings\" href=\"",
        HtmlEscape(load_groupings), "\">load them</a></span><script nonce=\"",
        HtmlEscape(chrome.nonce),
        "\">document.getElementById(\"load-groupings\").addEventListener("
        "\"click\", (e) => { const u = new URL(location.href); "
        "u.searchParams.set(\"groupings\", \"both\"); "
        "e.currentTarget.href = u.pathname + u.search; });</script>");
  }
  return base::StrCat(
      "<style>nav.bar { display: flex; align-items: center; gap: 16px; "
      "padding: 8px 20px; background: #1f2d3d; color: #fff; font: 14px "
      "system-ui, sans-serif; } nav.bar a { color: #fff; } nav.bar .brand { "
      "font-weight: 700; text-decoration: none; } nav.bar form { margin-left: "
      "auto; } nav.bar button { font: inherit; background: none; color: "
      "#cfd8e3; border: 1px solid #52657a; border-radius: 4px; padding: 2px "
      "10px; cursor: pointer; }</style>",
      NavBar(chrome, runs));
}

std::string RunsPage(const v1::ListRunsResponse& runs,
                     const std::string& filter, const PageChrome& chrome) {
  std::string body = "<h1>Runs</h1>\n";
  base::StrAppend(
      &body,
      "<form class=\"controls\" method=\"get\" action=\"/\">"
      "<input type=\"search\" id=\"filter\" name=\"filter\" value=\"",
      HtmlEscape(filter),
      "\" placeholder=\"Filter by name\" aria-label=\"Filter runs by name\">"
      "<span class=\"hint\">",
      runs.runs_size(), runs.runs_size() == 1 ? " run" : " runs",
      runs.next_page_token().empty() ? "" : " (more on the next page)",
      ". Pick a baseline and one or more runs to compare with it.</span>"
      "</form>\n");
  body +=
      "<form id=\"pick\" method=\"get\" action=\"/diff\">"
      "<div class=\"controls\"><button class=\"primary\" id=\"compare\" "
      "type=\"submit\">Compare</button></div>\n"
      "<table id=\"runs\"><thead><tr><th>Baseline</th><th>Compare</th>"
      "<th class=\"name sortable\">Run</th><th class=\"sortable\">State</th>"
      "<th class=\"sortable\" data-type=\"number\">Workers</th>"
      "<th class=\"sortable\" data-type=\"number\">Events</th>"
      "<th class=\"sortable\" data-type=\"number\">Last update</th>"
      "<th class=\"name\">Warnings</th></tr></thead><tbody>\n";
  for (const v1::StoredRun& run : runs.runs()) {
    const std::string id = HtmlEscape(run.run());
    const std::string state(differ::RunStateName(run.state()));
    std::string warnings;
    for (const std::string& warning : run.warnings()) {
      if (!warnings.empty()) warnings += "<br>";
      warnings += HtmlEscape(warning);
    }
    base::StrAppend(
        &body, "<tr data-run=\"", id,
        "\"><td class=\"pick\"><input type=\"radio\" name=\"baseline\" "
        "value=\"",
        id, "\" aria-label=\"baseline ", id,
        "\"></td><td class=\"pick\"><input type=\"checkbox\" "
        "name=\"experimental\" value=\"",
        id, "\" aria-label=\"compare ", id, "\"></td><td class=\"name\">",
        RunLink(run.run()), "</td><td class=\"state-", state, "\">", state,
        "</td><td data-value=\"", run.closed_worker_count(), "\">",
        run.closed_worker_count(), " of ", run.world_size(),
        "</td><td data-value=\"", run.event_count(), "\">", run.event_count(),
        "</td><td data-value=\"", run.updated_unix_ms(), "\">",
        TimeText(run.updated_unix_ms()), "</td><td class=\"name warn\">",
        warnings, "</td></tr>\n");
  }
  body += "</tbody></table></form>\n";
  if (runs.runs_size() == 0) {
    body += filter.empty()
                ? "<p class=\"hint\">No run is stored yet: runs appear here "
                  "once profdiff-agent uploads them.</p>\n"
                : "<p class=\"hint\">No run name holds that text.</p>\n";
  }
  if (!runs.next_page_token().empty()) {
    base::StrAppend(
        &body, "<p><a id=\"next-page\" href=\"/?",
        HtmlEscape(QueryString(
            {{"filter", filter}, {"page_token", runs.next_page_token()}})),
        "\">Next page</a></p>\n");
  }
  return Shell(chrome, "Runs", body, kRunsScript);
}

namespace {

// The digest's summary: per-step means over the run's workers.
std::string DigestSummary(const v1::RunDigest& digest) {
  const double workers = std::max<double>(digest.ranks_size(), 1);
  std::string out =
      "<h2>Average step (mean over workers)</h2>\n<dl class=\"facts\">";
  static constexpr std::pair<analysis::DigestStepMetric, const char*>
      kStepRows[] = {{analysis::kStepTime, "Step time"},
                     {analysis::kStepKernel, "Kernels"},
                     {analysis::kStepMemcpy, "Memcpy"},
                     {analysis::kStepMemset, "Memset"},
                     {analysis::kStepCommunication, "Communication"},
                     {analysis::kStepRuntime, "Runtime"},
                     {analysis::kStepDataLoader, "DataLoader"},
                     {analysis::kStepCpuExec, "CPU exec"},
                     {analysis::kStepOther, "Other"}};
  const auto& steps = digest.overview().step_metrics();
  for (const auto& [metric, label] : kStepRows) {
    if (metric >= steps.size()) continue;
    base::StrAppend(&out, "<dt>", label, "</dt><dd>",
                    base::Micros(steps[metric].per_step() / workers),
                    " us</dd>");
  }
  base::StrAppend(
      &out, "<dt>Kept steps</dt><dd>",
      absl::StrFormat("%.4g", digest.overview().steps_sum() / workers),
      " per worker</dd>");
  if (!digest.overview().device_name().empty()) {
    base::StrAppend(&out, "<dt>Device</dt><dd>",
                    HtmlEscape(digest.overview().device_name()), "</dd>");
  }
  out += "</dl>\n";
  for (const std::string& note : digest.worker_notes()) {
    base::StrAppend(&out, "<p class=\"warn\">", HtmlEscape(note), "</p>\n");
  }
  // The top-level modules, then the 20 operators and kernels that took the
  // most time per step.
  const v1::DigestModuleNode& root = digest.modules();
  if (root.children_size() > 0) {
    out +=
        "<h2>Modules (top level)</h2><table id=\"modules\"><thead><tr><th "
        "class=\"name\">Module</th><th>Host us/step</th><th>Device "
        "us/step</th></tr></thead><tbody>";
    for (const v1::DigestModuleNode& child : root.children()) {
      const auto& m = child.metrics();
      if (m.size() <= analysis::kModuleDevice) continue;
      base::StrAppend(
          &out, "<tr><td class=\"name\">", HtmlEscape(child.name()),
          "</td><td>",
          base::Micros(m[analysis::kModuleHost].per_step() / workers),
          "</td><td>",
          base::Micros(m[analysis::kModuleDevice].per_step() / workers),
          "</td></tr>");
    }
    out += "</tbody></table>\n";
  }
  std::vector<const v1::DigestOperatorRow*> operators;
  for (const v1::DigestOperatorRow& row : digest.operators()) {
    if (row.metrics_size() > analysis::kOperatorDeviceTotal) {
      operators.push_back(&row);
    }
  }
  const auto host_self = [](const v1::DigestOperatorRow* row) {
    return row->metrics(analysis::kOperatorHostSelf).per_step();
  };
  std::sort(operators.begin(), operators.end(),
            [&](auto* a, auto* b) { return host_self(a) > host_self(b); });
  if (operators.size() > 20) operators.resize(20);
  if (!operators.empty()) {
    out +=
        "<h2>Operators (20 with the most host self time)</h2><table "
        "id=\"operators\"><thead><tr><th class=\"name\">Operator</th><th>Calls/"
        "step</th><th>Host self us</th><th>Device self us</th></tr></thead>"
        "<tbody>";
    for (const v1::DigestOperatorRow* row : operators) {
      base::StrAppend(
          &out, "<tr><td class=\"name\">", HtmlEscape(row->name()), "</td><td>",
          absl::StrFormat(
              "%.4g",
              row->metrics(analysis::kOperatorCalls).per_step() / workers),
          "</td><td>", base::Micros(host_self(row) / workers), "</td><td>",
          base::Micros(row->metrics(analysis::kOperatorDeviceSelf).per_step() /
                       workers),
          "</td></tr>");
    }
    out += "</tbody></table>\n";
  }
  std::vector<const v1::DigestKernelRow*> kernels;
  for (const v1::DigestKernelRow& row : digest.kernels()) {
    if (row.metrics_size() > analysis::kKernelTotal) kernels.push_back(&row);
  }
  const auto total = [](const v1::DigestKernelRow* row) {
    return row->metrics(analysis::kKernelTotal).per_step();
  };
  std::sort(kernels.begin(), kernels.end(),
            [&](auto* a, auto* b) { return total(a) > total(b); });
  if (kernels.size() > 20) kernels.resize(20);
  if (!kernels.empty()) {
    out +=
        "<h2>Kernels (20 with the most time)</h2><table id=\"kernels\"><thead>"
        "<tr><th class=\"name\">Kernel</th><th>Calls/step</th><th>Total "
        "us/step</th></tr></thead><tbody>";
    for (const v1::DigestKernelRow* row : kernels) {
      base::StrAppend(
          &out, "<tr><td class=\"name\" title=\"", HtmlEscape(row->name()),
          "\">", HtmlEscape(ShortenKernelName(row->name(), 80)), "</td><td>",
          absl::StrFormat(
              "%.4g",
              row->metrics(analysis::kKernelCalls).per_step() / workers),
          "</td><td>", base::Micros(total(row) / workers), "</td></tr>");
    }
    out += "</tbody></table>\n";
  }
  return out;
}

}  // namespace

std::string RunPage(const v1::StoredRun& run, const v1::RunDigest* digest,
                    const std::string& digest_problem,
                    const PageChrome& chrome) {
  const std::string state(differ::RunStateName(run.state()));
  std::string body = base::StrCat("<h1>", HtmlEscape(run.run()), "</h1>\n");
  base::StrAppend(
      &body,
      "<dl class=\"facts\" id=\"run-facts\"><dt>State</dt><dd class=\"state-",
      state, "\">", state, "</dd><dt>Workers</dt><dd>",
      run.closed_worker_count(), " of ", run.world_size(),
      " with a closed span (", run.worker_count(),
      " seen)</dd><dt>Events</dt><dd>", run.event_count(),
      "</dd><dt>Created</dt><dd>", TimeText(run.created_unix_ms()),
      "</dd><dt>Last update</dt><dd>", TimeText(run.updated_unix_ms()),
      "</dd></dl>\n");
  for (const std::string& warning : run.warnings()) {
    base::StrAppend(&body, "<p class=\"warn\">", HtmlEscape(warning), "</p>\n");
  }
  base::StrAppend(
      &body,
      "<form class=\"controls\" method=\"get\" action=\"/diff\"><input "
      "type=\"hidden\" name=\"baseline\" value=\"",
      HtmlEscape(run.run()),
      "\"><label>Compare with run <input type=\"search\" name=\"experimental\" "
      "required placeholder=\"run id\"></label><button class=\"primary\" "
      "type=\"submit\">Diff</button></form>\n");
  if (digest != nullptr) {
    body += DigestSummary(*digest);
  } else if (!digest_problem.empty()) {
    base::StrAppend(&body, "<p class=\"warn\">No summary: ",
                    HtmlEscape(digest_problem), "</p>\n");
  }
  body +=
      "<h2>Workers</h2><p class=\"hint\">Each worker's events as a Chrome "
      "trace: open it in Perfetto (ui.perfetto.dev, \"Open trace file\") or "
      "chrome://tracing.</p>\n<table id=\"workers\"><thead><tr><th>Rank</th>"
      "<th class=\"name\">Worker</th><th>Spans</th><th>Events</th><th>Kept "
      "steps</th><th class=\"name\">Profile</th><th>Chrome trace</th></tr>"
      "</thead><tbody>\n";
  absl::flat_hash_map<int32_t, int> rank_workers;
  for (const v1::WorkerSummary& worker : run.workers()) {
    ++rank_workers[worker.worker().rank()];
  }
  for (const v1::WorkerSummary& worker : run.workers()) {
    int64_t events = 0;
    int closed = 0;
    for (const v1::SpanSummary& span : worker.spans()) {
      events += span.event_count();
      if (span.state() == v1::SPAN_STATE_CLOSED) ++closed;
    }
    // A rank two workers hold (the run's warnings say so) is exported by
    // the worker's name.
    const v1::WorkerInfo& info = worker.worker();
    const bool by_rank = rank_workers[info.rank()] == 1;
    const std::string selector =
        by_rank ? base::StrCat("rank=", info.rank())
                : base::StrCat("worker=", PercentEncode(info.worker_name()));
    const std::string file = base::StrCat(
        run.run(), "-",
        by_rank ? base::StrCat("rank", info.rank()) : info.worker_name(),
        ".json");
    base::StrAppend(
        &body, "<tr><td>", info.rank(), "</td><td class=\"name\">",
        HtmlEscape(info.worker_name()), "</td><td>", closed, " closed of ",
        worker.spans_size(), "</td><td>", events, "</td><td>",
        worker.step_count(), "</td><td class=\"name\">",
        worker.profile_ready() ? "ready"
                               : HtmlEscape(worker.profile_problem().empty()
                                                ? "not built yet"
                                                : worker.profile_problem()),
        "</td><td>",
        closed > 0
            ? base::StrCat("<a class=\"export\" href=\"/run/",
                           PercentEncode(run.run()), "/trace.json?", selector,
                           "\" download=\"", HtmlEscape(file), "\">export</a>")
            : std::string("-"),
        "</td></tr>\n");
  }
  body += "</tbody></table>\n";
  return Shell(chrome, run.run(), body, "");
}

std::string LoginPage(const std::string& next, bool wrong_token,
                      const PageChrome& chrome) {
  std::string body =
      "<h1>Sign in</h1>\n<p class=\"hint\">This differ asks for its token "
      "(the contents of its --auth-token-file).</p>\n";
  if (wrong_token)
    body += "<p class=\"error\" id=\"login-error\">Wrong token.</p>\n";
  base::StrAppend(
      &body,
      "<form method=\"post\" action=\"/login\" class=\"controls\"><input "
      "type=\"hidden\" name=\"next\" value=\"",
      HtmlEscape(next),
      "\"><input type=\"password\" name=\"token\" id=\"token\" "
      "autocomplete=\"current-password\" aria-label=\"token\" required "
      "autofocus><button class=\"primary\" type=\"submit\">Sign in</button>"
      "</form>\n");
  return Shell(chrome, "Sign in", body, "");
}

std::string ErrorPage(int status, const std::string& message,
                      const PageChrome& chrome) {
  const char* reason = status == 400   ? "Bad Request"
                       : status == 401 ? "Unauthorized"
                       : status == 404 ? "Not Found"
                       : status == 405 ? "Method Not Allowed"
                       : status == 414 ? "URI Too Long"
                       : status == 503 ? "Service Unavailable"
                       : status == 504 ? "Gateway Timeout"
                                       : "Error";
  const std::string title = base::StrCat(status, " ", reason);
  const std::string body = base::StrCat(
      "<h1 id=\"error-title\">", title, "</h1>\n<p id=\"error-message\">",
      HtmlEscape(message), "</p>\n<p><a href=\"/\">All runs</a></p>\n");
  return Shell(chrome, title, body, "");
}

std::string IncompletePage(const std::vector<v1::StoredRun>& incomplete,
                           const std::string& partial_url,
                           const PageChrome& chrome) {
  std::string body = "<h1>Still uploading</h1>\n<ul id=\"incomplete\">";
  for (const v1::StoredRun& run : incomplete) {
    std::vector<int32_t> closed(run.closed_ranks().begin(),
                                run.closed_ranks().end());
    base::StrAppend(
        &body, "<li>", RunLink(run.run()), " is ",
        differ::RunStateName(run.state()), ": ", run.closed_worker_count(),
        " of ", run.world_size(), " workers stored",
        closed.empty()
            ? ""
            : base::StrCat(" (ranks ", base::RankRanges(closed), ")"),
        ".</li>");
  }
  base::StrAppend(
      &body,
      "</ul>\n<p>A diff now compares what is stored; its numbers change as "
      "the other workers arrive.</p>\n<p><a id=\"partial-diff\" href=\"",
      HtmlEscape(partial_url),
      "\">Show the partial diff</a> or come back when the run is "
      "COMPLETE.</p>\n");
  return Shell(chrome, "Still uploading", body, "");
}

}  // namespace profdiff::differ::web
