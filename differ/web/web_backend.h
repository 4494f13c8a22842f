// What the web UI reads: the runs the differ serves and their diffs. The
// differ implements it over its aggregator
// (differ/service/store_web_backend.h), so the pages show exactly what the gRPC
// services answer.
#ifndef PROFDIFF_DIFFER_WEB_WEB_BACKEND_H_
#define PROFDIFF_DIFFER_WEB_WEB_BACKEND_H_

#include <string>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "differ/web/http_server.h"
#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/differ.pb.h"
#include "profdiff/v1/digest.pb.h"
#include "profdiff/v1/run_store.pb.h"

namespace profdiff::differ::web {

// Thread-safe. Errors are the store's: NotFound naming an unknown run,
// InvalidArgument for a request it refuses, Unavailable when the aggregator
// does not answer.
class WebBackend {
 public:
  virtual ~WebBackend() = default;
  virtual absl::StatusOr<v1::ListRunsResponse> ListRuns(
      const v1::ListRunsRequest& request, absl::Time deadline) = 0;
  // With its workers unless `summary`.
  virtual absl::StatusOr<v1::StoredRun> GetRun(const std::string& run,
                                               bool summary,
                                               absl::Time deadline) = 0;
  // The run reduced over every worker with a closed span.
  virtual absl::StatusOr<v1::RunDigest> GetDigest(const std::string& run,
                                                  absl::Time deadline) = 0;
  virtual absl::StatusOr<v1::DiffReport> Diff(const v1::DiffRequest& request,
                                              absl::Time deadline) = 0;
  // One worker's events as a Chrome trace, in pieces; the error of the first
  // piece (an unknown run or worker) comes back here.
  virtual absl::StatusOr<BodyStream> ExportTrace(
      const v1::ExportTraceRequest& request) = 0;
};

}  // namespace profdiff::differ::web

#endif  // PROFDIFF_DIFFER_WEB_WEB_BACKEND_H_
