// The differ's web UI (`profdiff-differ --http`): the runs page, a diff at a
// URL (/diff?baseline=A&experimental=B, the page `profdiff diff --format html`
// writes), one run (/run/ID) with its Chrome traces, and error pages with the
// right status. Every response carries a Content-Security-Policy that lets
// only the page's own inline script run.
#ifndef PROFDIFF_DIFFER_WEB_WEB_UI_H_
#define PROFDIFF_DIFFER_WEB_WEB_UI_H_

#include <cstddef>
#include <memory>
#include <string>

#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>
#include <absl/synchronization/mutex.h>
#include <absl/synchronization/notification.h>
#include <absl/time/time.h>

#include "base/thread_pool.h"
#include "differ/web/http_server.h"
#include "differ/web/web_auth.h"
#include "differ/web/web_backend.h"
#include "differ/web/web_pages.h"
#include "profdiff/v1/differ.pb.h"

namespace profdiff::differ::web {

struct WebUiOptions {
  std::string token;  // the differ's --auth-token-file; empty: no sign-in
  absl::Duration request_timeout = absl::Minutes(2);
  int max_concurrent_diffs = 2;  // more wait for a turn until their deadline
  size_t max_query_bytes = 8 << 10;  // 414 beyond
  int max_query_arguments = 64;      // 400 beyond
  int max_experimental_runs = 16;    // as Differ.DiffMany
  // How long a diff page waits for its group-by toggle's diff (the other
  // groupings, which the store rebuilds from events the first time: seconds
  // at a thousand ranks). Past it the page comes without them, offers to load
  // them (groupings=both waits), and they are made in the background.
  absl::Duration other_groupings_budget = absl::Milliseconds(400);
};

class WebUi {
 public:
  // `backend` must outlive this.
  WebUi(WebBackend* backend, WebUiOptions options);
  ~WebUi();  // waits for the background diffs

  // Thread-safe; the HttpServer's handler.
  HttpResponse Handle(const HttpRequest& request);

 private:
  HttpResponse Route(const HttpRequest& request, const PageChrome& chrome);
  HttpResponse Login(const HttpRequest& request, const PageChrome& chrome);
  HttpResponse Runs(const HttpRequest& request, const PageChrome& chrome);
  HttpResponse Run(const std::string& run, const PageChrome& chrome);
  HttpResponse ExportTrace(const std::string& run, const HttpRequest& request,
                           const PageChrome& chrome);
  HttpResponse Diff(const HttpRequest& request, const PageChrome& chrome);

  // The group-by toggle's diff (the other groupings), on the background
  // threads so that a page need not wait for it, and a slow one still lands
  // in the differ's cache for the next page. One per request at a time: a
  // page asked again while it runs waits for the same one.
  struct ToggleDiff {
    absl::Notification done;
    absl::StatusOr<v1::DiffReport> report;
  };
  std::shared_ptr<ToggleDiff> StartToggleDiff(const v1::DiffRequest& request,
                                              absl::Time deadline);

  // Waits for one of max_concurrent_diffs turns; false past `deadline`.
  bool TakeDiffTurn(absl::Time deadline);
  void GiveDiffTurn();

  WebBackend* const backend_;
  const WebUiOptions options_;
  WebAuth auth_;
  // The group-by toggle's diffs that outlive their page's wait.
  std::unique_ptr<base::ThreadPool> background_;
  absl::Mutex mu_;
  int diffs_running_ ABSL_GUARDED_BY(mu_) = 0;
  // The toggle diffs running, by their serialized request.
  absl::flat_hash_map<std::string, std::shared_ptr<ToggleDiff>> toggles_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace profdiff::differ::web

#endif  // PROFDIFF_DIFFER_WEB_WEB_UI_H_
