// The web UI's own pages (runs, one run, login, errors), written on the
// server with every stored name escaped; the diff itself is the HTML report's
// page (report/html_report.h). Each page is self-contained: inline style and
// one inline script carrying the response's CSP nonce, nothing fetched.
#ifndef PROFDIFF_DIFFER_WEB_WEB_PAGES_H_
#define PROFDIFF_DIFFER_WEB_WEB_PAGES_H_

#include <string>
#include <vector>

#include "profdiff/v1/digest.pb.h"
#include "profdiff/v1/run_store.pb.h"

namespace profdiff::differ::web {

// What every page of one response shares.
struct PageChrome {
  std::string nonce;       // the Content-Security-Policy's script nonce
  bool signed_in = false;  // shows the sign-out button
};

// The bar at the top of every page, the diff report's included.
std::string NavBar(const PageChrome& chrome, const std::string& extra_html);

// The diff report's header (report::PageOptions::header_html): the bar with
// the runs compared, each a link to its run page, and its own style (the
// report's stylesheet does not know the bar).
// `load_groupings` (may be empty): the URL of the same page with the group-by
// toggle's other groupings, offered when the page came without them.
std::string ReportHeader(const PageChrome& chrome, const std::string& baseline,
                         const std::vector<std::string>& experimental,
                         const std::string& ranks,
                         const std::string& load_groupings);

// `/`: every run listed, a baseline (radio) and experimental runs
// (checkboxes) picked -> /diff. `next_page` is the store's page token.
std::string RunsPage(const v1::ListRunsResponse& runs,
                     const std::string& filter, const PageChrome& chrome);

// `/run/ID`: the run's state and workers (each with its Chrome trace export)
// and, when it could be reduced, its step, module, operator and kernel
// summary; `digest_problem` says why not otherwise.
std::string RunPage(const v1::StoredRun& run, const v1::RunDigest* digest,
                    const std::string& digest_problem,
                    const PageChrome& chrome);

// The login form; `next` is where a good token leads.
std::string LoginPage(const std::string& next, bool wrong_token,
                      const PageChrome& chrome);

// An error page: "404 Not Found" and what was not found.
std::string ErrorPage(int status, const std::string& message,
                      const PageChrome& chrome);

// A diff asked of runs still being uploaded: which, how far, and a link to
// the diff of what is stored (`partial_url`).
std::string IncompletePage(const std::vector<v1::StoredRun>& incomplete,
                           const std::string& partial_url,
                           const PageChrome& chrome);

}  // namespace profdiff::differ::web

#endif  // PROFDIFF_DIFFER_WEB_WEB_PAGES_H_
