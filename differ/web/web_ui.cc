#include "differ/web/web_ui.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>
#include <absl/synchronization/notification.h>

#include "base/id_rules.h"
#include "base/str_cat.h"
#include "differ/web/url_text.h"
#include "report/html_report.h"
#include "report/multi_diff_page.h"

namespace profdiff::differ::web {
namespace {

HttpResponse Html(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

HttpResponse Error(int status, const std::string& message,
                   const PageChrome& chrome) {
  return Html(status, ErrorPage(status, message, chrome));
}

HttpResponse Redirect(const std::string& to) {
  HttpResponse response = Html(303, "");
  response.headers.emplace_back("Location", to);
  return response;
}

// A store error as the page and status a browser should get.
HttpResponse ErrorOf(const absl::Status& status, const PageChrome& chrome) {
  int code = 500;
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
      code = 404;
      break;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      code = 400;
      break;
    case absl::StatusCode::kFailedPrecondition:
      code = 409;
      break;
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kResourceExhausted:
      code = 503;
      break;
    case absl::StatusCode::kDeadlineExceeded:
      code = 504;
      break;
    default:
      break;
  }
  return Error(code, std::string(status.message()), chrome);
}

// Only pages of this UI: a path, not "//host" or a scheme. No control byte,
// space or backslash anywhere: browsers drop tabs and read "\\" as "/", so
// "/\t/evil.example" would leave the site.
bool IsLocalPath(const std::string& next) {
  if (next.empty() || next[0] != '/') return false;
  if (next.size() > 1 && next[1] == '/') return false;
  for (const char c : next) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x21 || byte == 0x7f || c == '\\') return false;
  }
  return true;
}

// `query` with `key` set to `value` (every earlier value of it dropped).
std::vector<std::pair<std::string, std::string>> WithArgument(
    std::vector<std::pair<std::string, std::string>> query,
    const std::string& key, const std::string& value) {
  std::erase_if(query, [&](const auto& arg) { return arg.first == key; });
  query.emplace_back(key, value);
  return query;
}

// "0-3,8": ranks as the CLI's --ranks takes them, with ranges; at most
// kMaxRanks of them.
absl::StatusOr<std::vector<int32_t>> ParseRanks(const std::string& text) {
  constexpr int64_t kMaxRanks = 1 << 16;
  std::vector<int32_t> ranks;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    const std::vector<absl::string_view> ends = absl::StrSplit(part, '-');
    int32_t first = 0;
    int32_t last = 0;
    if (ends.size() > 2 || !absl::SimpleAtoi(ends[0], &first) ||
        !absl::SimpleAtoi(ends.back(), &last) || first < 0 || last < first) {
      return absl::InvalidArgumentError(base::StrCat(
          "ranks=", text, ": expected ranks and ranges such as 0-3,8"));
    }
    if (static_cast<int64_t>(ranks.size()) + last - first + 1 > kMaxRanks) {
      return absl::InvalidArgumentError(
          base::StrCat("ranks=", text, ": more than ", kMaxRanks, " ranks"));
    }
    for (int32_t r = first; r <= last; ++r) ranks.push_back(r);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

// The headers every answer carries: only the page's own script runs (nonce),
// nothing is fetched from elsewhere, no other site frames it, nothing is
// cached on shared machines.
void AddSecurityHeaders(HttpResponse& response, const std::string& nonce) {
  response.headers.emplace_back(
      "Content-Security-Policy",
      base::StrCat("default-src 'none'; script-src 'nonce-", nonce,
                   "'; style-src 'unsafe-inline'; img-src data:; "
                   "form-action 'self'; base-uri 'none'; "
                   "frame-ancestors 'self'"));
  response.headers.emplace_back("X-Content-Type-Options", "nosniff");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
  response.headers.emplace_back("X-Frame-Options", "SAMEORIGIN");
  response.headers.emplace_back("Cache-Control", "no-store");
}

}  // namespace

WebUi::WebUi(WebBackend* backend, WebUiOptions options)
    : backend_(backend),
      options_(std::move(options)),
      auth_(options_.token),
      background_(std::make_unique<base::ThreadPool>(
          std::max(options_.max_concurrent_diffs, 1))) {}

WebUi::~WebUi() { background_.reset(); }

HttpResponse WebUi::Handle(const HttpRequest& request) {
  PageChrome chrome;
  chrome.nonce = RandomHex(32);
  chrome.signed_in = auth_.required();
  HttpResponse response = Route(request, chrome);
  AddSecurityHeaders(response, chrome.nonce);
  return response;
}

HttpResponse WebUi::Route(const HttpRequest& request,
                          const PageChrome& chrome) {
  const bool read = request.method == "GET" || request.method == "HEAD";
  if (request.path == "/healthz" && read) {
    HttpResponse ok = Html(200, "ok\n");
    ok.content_type = "text/plain; charset=utf-8";
    return ok;
  }
  if (request.query_bytes > options_.max_query_bytes) {
    return Error(414,
                 base::StrCat("the query is ", request.query_bytes,
                              " bytes; at most ", options_.max_query_bytes),
                 chrome);
  }
  if (static_cast<int>(request.query.size()) > options_.max_query_arguments) {
    return Error(
        400,
        base::StrCat("the query has ", request.query.size(),
                     " arguments; at most ", options_.max_query_arguments),
        chrome);
  }
  if (request.path == "/login" || request.path == "/logout") {
    if (request.method != "POST" && !(request.path == "/login" && read)) {
      HttpResponse refused =
          Error(405, base::StrCat(request.method, " ", request.path), chrome);
      refused.headers.emplace_back(
          "Allow", request.path == "/login" ? "GET, POST" : "POST");
      return refused;
    }
    return Login(request, chrome);
  }
  if (!read) {
    HttpResponse refused =
        Error(405, base::StrCat(request.method, " is not served here"), chrome);
    refused.headers.emplace_back("Allow", "GET, HEAD");
    return refused;
  }
  if (!auth_.Allows(request)) {
    std::string next = request.path;
    if (!request.query.empty()) next += "?" + QueryString(request.query);
    PageChrome signed_out = chrome;
    signed_out.signed_in = false;
    HttpResponse login = Html(401, LoginPage(next, false, signed_out));
    login.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"profdiff\"");
    return login;
  }
  if (request.path == "/") return Runs(request, chrome);
  if (request.path == "/diff") return Diff(request, chrome);
  constexpr std::string_view kRunPrefix = "/run/";
  constexpr std::string_view kTraceSuffix = "/trace.json";
  if (request.path.starts_with(kRunPrefix)) {
    std::string run = request.path.substr(kRunPrefix.size());
    const bool trace = run.ends_with(kTraceSuffix);
    if (trace) run.resize(run.size() - kTraceSuffix.size());
    // A run id has no '/' nor '%': anything else is no page of this UI.
    if (base::IsValidId(run)) {
      return trace ? ExportTrace(run, request, chrome) : Run(run, chrome);
    }
  }
  return Error(404, base::StrCat("no page at ", request.path), chrome);
}

HttpResponse WebUi::Login(const HttpRequest& request,
                          const PageChrome& chrome) {
  PageChrome signed_out = chrome;
  signed_out.signed_in = false;
  if (request.path == "/logout") {
    auth_.Logout(request);
    HttpResponse out = Redirect("/");
    out.headers.emplace_back("Set-Cookie", auth_.CookieFor("", request.tls));
    return out;
  }
  if (request.method != "POST") {
    const std::string next = request.Arg("next").value_or("/");
    return Html(200,
                LoginPage(IsLocalPath(next) ? next : "/", false, signed_out));
  }
  std::string token;
  std::string next = "/";
  for (const auto& [key, value] : ParseForm(request.body)) {
    if (key == "token") token = value;
    if (key == "next" && IsLocalPath(value)) next = value;
  }
  if (!auth_.required()) return Redirect(next);
  const std::string session = auth_.Login(token);
  if (session.empty()) return Html(401, LoginPage(next, true, signed_out));
  HttpResponse in = Redirect(next);
  in.headers.emplace_back("Set-Cookie", auth_.CookieFor(session, request.tls));
  return in;
}

HttpResponse WebUi::Runs(const HttpRequest& request, const PageChrome& chrome) {
  v1::ListRunsRequest list;
  list.set_filter(request.Arg("filter").value_or(""));
  list.set_page_token(request.Arg("page_token").value_or(""));
  list.set_page_size(1000);
  absl::StatusOr<v1::ListRunsResponse> runs =
      backend_->ListRuns(list, absl::Now() + options_.request_timeout);
  if (!runs.ok()) return ErrorOf(runs.status(), chrome);
  return Html(200, RunsPage(*runs, list.filter(), chrome));
}

HttpResponse WebUi::Run(const std::string& run, const PageChrome& chrome) {
  const absl::Time deadline = absl::Now() + options_.request_timeout;
  absl::StatusOr<v1::StoredRun> stored =
      backend_->GetRun(run, /*summary=*/false, deadline);
  if (!stored.ok()) return ErrorOf(stored.status(), chrome);
  std::string problem;
  absl::StatusOr<v1::RunDigest> digest;
  if (stored->closed_worker_count() == 0) {
    problem = "no worker has a closed span yet";
  } else {
    digest = backend_->GetDigest(run, deadline);
    if (!digest.ok()) problem = std::string(digest.status().message());
  }
  return Html(
      200, RunPage(*stored, digest.ok() ? &*digest : nullptr, problem, chrome));
}

HttpResponse WebUi::ExportTrace(const std::string& run,
                                const HttpRequest& request,
                                const PageChrome& chrome) {
  v1::ExportTraceRequest export_request;
  export_request.set_run(run);
  if (const std::optional<std::string> rank = request.Arg("rank")) {
    int32_t value = 0;
    if (!absl::SimpleAtoi(*rank, &value) || value < 0) {
      return Error(400, base::StrCat("rank=", *rank, ": not a rank"), chrome);
    }
    export_request.mutable_worker()->set_rank(value);
  } else if (const std::optional<std::string> worker = request.Arg("worker")) {
    export_request.mutable_worker()->set_worker_name(*worker);
  } else {
    return Error(400,
                 "name the worker: /run/ID/trace.json?rank=N or ?worker=NAME",
                 chrome);
  }
  absl::StatusOr<BodyStream> stream = backend_->ExportTrace(export_request);
  if (!stream.ok()) return ErrorOf(stream.status(), chrome);
  HttpResponse response;
  response.content_type = "application/json";
  response.stream = *std::move(stream);
  const std::string file =
      base::StrCat(run, "-",
                   export_request.worker().has_rank()
                       ? base::StrCat("rank", export_request.worker().rank())
                       : PercentEncode(export_request.worker().worker_name()),
                   ".json");
  response.headers.emplace_back(
      "Content-Disposition",
      base::StrCat("attachment; filename=\"", file, "\""));
  return response;
}

std::shared_ptr<WebUi::ToggleDiff> WebUi::StartToggleDiff(
    const v1::DiffRequest& request, absl::Time deadline) {
  // At most this many wait in the background: past it a page makes its own
  // here, so a flood of URLs cannot queue work that outlives its pages.
  constexpr size_t kMaxToggles = 16;
  const std::string key = request.SerializeAsString();
  auto toggle = std::make_shared<ToggleDiff>();
  bool queued = false;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = toggles_.find(key); it != toggles_.end()) return it->second;
    if (toggles_.size() < kMaxToggles) {
      toggles_[key] = toggle;
      queued = true;
    }
  }
  if (!queued) {
    toggle->report = backend_->Diff(request, deadline);
    toggle->done.Notify();
    return toggle;
  }
  background_->Post([this, request, deadline, toggle, key] {
    toggle->report = backend_->Diff(request, deadline);
    toggle->done.Notify();
    absl::MutexLock lock(&mu_);
    toggles_.erase(key);
  });
  return toggle;
}

bool WebUi::TakeDiffTurn(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  const auto free = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return diffs_running_ < options_.max_concurrent_diffs;
  };
  if (!mu_.AwaitWithDeadline(absl::Condition(&free), deadline)) return false;
  ++diffs_running_;
  return true;
}

void WebUi::GiveDiffTurn() {
  absl::MutexLock lock(&mu_);
  --diffs_running_;
}

HttpResponse WebUi::Diff(const HttpRequest& request, const PageChrome& chrome) {
  const std::string baseline = request.Arg("baseline").value_or("");
  std::vector<std::string> experimental;
  for (std::string& run : request.Args("experimental")) {
    if (!run.empty()) experimental.push_back(std::move(run));
  }
  if (baseline.empty() || experimental.empty()) {
    return Error(400,
                 "name the runs: /diff?baseline=RUN&experimental=RUN (repeat "
                 "experimental for several)",
                 chrome);
  }
  if (static_cast<int>(experimental.size()) > options_.max_experimental_runs) {
    return Error(
        400,
        base::StrCat(experimental.size(), " experimental runs; at most ",
                     options_.max_experimental_runs),
        chrome);
  }
  std::vector<std::string> runs = {baseline};
  runs.insert(runs.end(), experimental.begin(), experimental.end());
  for (const std::string& run : runs) {
    if (absl::Status valid = base::ValidateId("run", run); !valid.ok()) {
      return Error(400, std::string(valid.message()), chrome);
    }
  }
  v1::DiffOptions asked;
  const std::string ranks_text = request.Arg("ranks").value_or("");
  if (!ranks_text.empty()) {
    absl::StatusOr<std::vector<int32_t>> ranks = ParseRanks(ranks_text);
    if (!ranks.ok())
      return Error(400, std::string(ranks.status().message()), chrome);
    for (int32_t r : *ranks) asked.add_ranks(r);
  }
  const absl::Time deadline = absl::Now() + options_.request_timeout;
  // An unknown run is a 404 before any diff work; a run still uploading is
  // said so, with the partial diff one click away.
  std::vector<v1::StoredRun> incomplete;
  for (const std::string& run : runs) {
    absl::StatusOr<v1::StoredRun> stored =
        backend_->GetRun(run, /*summary=*/true, deadline);
    if (!stored.ok()) return ErrorOf(stored.status(), chrome);
    if (stored->state() != v1::RUN_STATE_COMPLETE) {
      incomplete.push_back(*std::move(stored));
    }
  }
  if (!incomplete.empty() && request.Arg("partial").value_or("") != "1") {
    const std::string partial =
        "/diff?" + QueryString(WithArgument(request.query, "partial", "1"));
    return Html(200, IncompletePage(incomplete, partial, chrome));
  }
  if (!TakeDiffTurn(deadline)) {
    return Error(503, "every diff slot stayed busy until the deadline", chrome);
  }
  const report::HtmlReportDiffs diffs = report::HtmlReportOptions(asked);
  const bool wait_for_groupings =
      request.Arg("groupings").value_or("") == "both";
  const absl::Time groupings_until =
      wait_for_groupings ? deadline
                         : absl::Now() + options_.other_groupings_budget;
  std::vector<v1::DiffReport> reports;
  std::vector<std::optional<v1::DiffReport>> others;
  bool groupings_missing = false;
  absl::Status failed;
  for (const std::string& run : experimental) {
    v1::DiffRequest page;
    page.set_baseline_run(baseline);
    page.set_experimental_run(run);
    *page.mutable_options() = diffs.page;
    v1::DiffRequest other = page;
    *other.mutable_options() = diffs.other;
    other.set_operator_grouping(
        report::OtherOperatorGrouping(v1::GROUPING_UNSPECIFIED));
    other.set_kernel_grouping(
        report::OtherKernelGrouping(v1::GROUPING_UNSPECIFIED));
    const std::shared_ptr<ToggleDiff> toggle = StartToggleDiff(other, deadline);
    absl::StatusOr<v1::DiffReport> page_report = backend_->Diff(page, deadline);
    if (!page_report.ok()) {
      failed = page_report.status();
      break;
    }
    reports.push_back(*std::move(page_report));
    if (toggle->done.WaitForNotificationWithDeadline(groupings_until) &&
        toggle->report.ok()) {
      others.push_back(*toggle->report);  // other pages may share it
    } else {
      if (wait_for_groupings) {
        failed = toggle->done.HasBeenNotified()
                     ? toggle->report.status()
                     : absl::DeadlineExceededError(
                           "the other groupings took past the deadline");
        break;
      }
      others.emplace_back();
      groupings_missing = true;
    }
  }
  GiveDiffTurn();
  if (!failed.ok()) return ErrorOf(failed, chrome);
  report::PageOptions page;
  page.script_nonce = chrome.nonce;
  std::string load_groupings;
  if (groupings_missing) {
    load_groupings = "/diff?" + QueryString(WithArgument(request.query,
                                                         "groupings", "both"));
  }
  page.header_html =
      ReportHeader(chrome, baseline, experimental, ranks_text, load_groupings);
  const auto other_of = [&](size_t k) {
    return others[k] ? &*others[k] : nullptr;
  };
  if (reports.size() == 1) {
    return Html(200, report::RenderHtmlReport(reports[0], other_of(0), page));
  }
  report::PageOptions framed;  // each pair's page, inside the several-run page
  framed.script_nonce = chrome.nonce;
  std::vector<std::string> pages;
  for (size_t k = 0; k < reports.size(); ++k) {
    pages.push_back(report::RenderHtmlReport(reports[k], other_of(k), framed));
  }
  return Html(200, report::RenderMultiDiffHtml(reports, pages, page));
}

}  // namespace profdiff::differ::web
