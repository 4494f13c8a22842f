// A trace file rewritten in place with other content reaches the store as a
// second span of its worker (the agent names a span after its file and
// content, so new content is a new span): counted with the first, the worker's
// events would be counted twice. Both backends keep only the newest version of
// a file in a worker's profile, digest and export, and say so in the run's
// warnings.
//
// Design:
// 1. A file is its host and source path (WorkerInfo.hostname, .source_path);
//    a span without a source path (a CUPTI capture) is no file's version and
//    always counts.
// 2. Two closed spans of one worker are versions of one file when they name
//    the same file and both carry content fingerprints that differ; the
//    newest is the one whose upload began last (opened time, then closed
//    time, then span id), and replaces every other version.
// 3. A span replaced is still stored and listed (GetRun), and ExportTrace of
//    that one span still serves it: only a worker's whole profile, digest and
//    export leave it out.
#ifndef PROFDIFF_AGGREGATOR_STORE_REWRITTEN_SPANS_H_
#define PROFDIFF_AGGREGATOR_STORE_REWRITTEN_SPANS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "profdiff/v1/collector.pb.h"

namespace profdiff::aggregator {

// One closed span of a worker, as the rule reads it.
struct ClosedSpanVersion {
  std::string id;
  const v1::UploadHeader* header;  // not owned; outlives the call
  int64_t opened_unix_ms = 0;
  int64_t closed_unix_ms = 0;
};

// A span left out, and the newer version of its file that replaces it.
struct ReplacedSpan {
  std::string id;
  std::string by;
  std::string hostname;
  std::string source_path;
};

// The spans of `closed` (one worker's) that a newer version of their file
// replaces (design note 2), in span id order.
std::vector<ReplacedSpan> FindReplacedSpans(
    const std::vector<ClosedSpanVersion>& closed);

// Whether `id` is among `replaced`.
bool IsReplaced(const std::vector<ReplacedSpan>& replaced, std::string_view id);

// The run warning for `replaced` of worker `worker_key`: "worker 0.w0: trace
// file F on host H was rewritten with other content; span B (newer) replaces
// span A, which is left out of the worker's profile, digest and export".
std::string ReplacedSpanWarning(std::string_view worker_key,
                                const ReplacedSpan& replaced);

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_STORE_REWRITTEN_SPANS_H_
