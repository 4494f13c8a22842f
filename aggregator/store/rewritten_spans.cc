#include "aggregator/store/rewritten_spans.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include <absl/strings/escaping.h>

#include "base/status_annotate.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {
namespace {

// Paths are the agent's text: escaped, and a long one cut to its end (the file
// name is the telling part), so a hostile path never fills the warnings.
constexpr size_t kMaxPathBytesShown = 200;

std::string ShownPath(std::string_view path) {
  if (path.size() <= kMaxPathBytesShown)
    return base::StrCat("\"", absl::CHexEscape(base::ToAbsl(path)), "\"");
  return base::StrCat("\"...",
                      absl::CHexEscape(base::ToAbsl(
                          path.substr(path.size() - kMaxPathBytesShown))),
                      "\"");
}

}  // namespace

std::vector<ReplacedSpan> FindReplacedSpans(
    const std::vector<ClosedSpanVersion>& closed) {
  // Design note 1: the versions of each file.
  std::map<std::pair<std::string, std::string>,
           std::vector<const ClosedSpanVersion*>>
      by_file;
  for (const ClosedSpanVersion& span : closed) {
    const v1::WorkerInfo& worker = span.header->worker();
    if (worker.source_path().empty()) continue;
    by_file[{worker.hostname(), worker.source_path()}].push_back(&span);
  }
  std::vector<ReplacedSpan> replaced;
  for (const auto& [file, versions] : by_file) {
    if (versions.size() < 2) continue;
    const ClosedSpanVersion* newest = *std::max_element(
        versions.begin(), versions.end(),
        [](const ClosedSpanVersion* a, const ClosedSpanVersion* b) {
          return std::tie(a->opened_unix_ms, a->closed_unix_ms, a->id) <
                 std::tie(b->opened_unix_ms, b->closed_unix_ms, b->id);
        });
    const std::string& newest_content = newest->header->content_fingerprint();
    for (const ClosedSpanVersion* span : versions) {
      const std::string& content = span->header->content_fingerprint();
      // Design note 2: the same or unknown content is not a rewrite.
      if (span == newest || content.empty() || newest_content.empty() ||
          content == newest_content) {
        continue;
      }
      replaced.push_back({span->id, newest->id, file.first, file.second});
    }
  }
  std::sort(
      replaced.begin(), replaced.end(),
      [](const ReplacedSpan& a, const ReplacedSpan& b) { return a.id < b.id; });
  return replaced;
}

bool IsReplaced(const std::vector<ReplacedSpan>& replaced,
                std::string_view id) {
  return std::any_of(replaced.begin(), replaced.end(),
                     [&](const ReplacedSpan& r) { return r.id == id; });
}

std::string ReplacedSpanWarning(std::string_view worker_key,
                                const ReplacedSpan& replaced) {
  return base::StrCat(
      "worker ", worker_key, ": trace file ", ShownPath(replaced.source_path),
      replaced.hostname.empty()
          ? std::string()
          : base::StrCat(" on host ", base::QuoteBytes(replaced.hostname)),
      " was rewritten with other content; span ", replaced.by,
      " (newer) replaces span ", replaced.id,
      ", which is left out of the worker's profile, digest and export");
}

}  // namespace profdiff::aggregator
