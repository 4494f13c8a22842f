// The web UI's reads, served from the differ's aggregator the way the gRPC
// services serve them: the same StoredRuns (and digest cache), the same
// DiffStoredRuns.
#ifndef PROFDIFF_DIFFER_SERVICE_STORE_WEB_BACKEND_H_
#define PROFDIFF_DIFFER_SERVICE_STORE_WEB_BACKEND_H_

#include <string>

#include "differ/service/stored_runs.h"
#include "differ/web/web_backend.h"

namespace profdiff::differ {

class StoreWebBackend final : public web::WebBackend {
 public:
  // `store` must outlive this.
  explicit StoreWebBackend(const StoredRuns* store) : store_(store) {}

  absl::StatusOr<v1::ListRunsResponse> ListRuns(
      const v1::ListRunsRequest& request, absl::Time deadline) override;
  absl::StatusOr<v1::StoredRun> GetRun(const std::string& run, bool summary,
                                       absl::Time deadline) override;
  absl::StatusOr<v1::RunDigest> GetDigest(const std::string& run,
                                          absl::Time deadline) override;
  absl::StatusOr<v1::DiffReport> Diff(const v1::DiffRequest& request,
                                      absl::Time deadline) override;
  absl::StatusOr<web::BodyStream> ExportTrace(
      const v1::ExportTraceRequest& request) override;

 private:
  const StoredRuns* store_;
};

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SERVICE_STORE_WEB_BACKEND_H_
