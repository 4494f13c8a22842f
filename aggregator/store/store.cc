#include "aggregator/store/store.h"

#include <utility>
#include <vector>

#include "analysis/run_digest.h"
#include "base/status_macros.h"

namespace profdiff::aggregator {

absl::StatusOr<v1::RunProfile> Store::GetProfile(
    const v1::GetProfileRequest& request) const {
  v1::RunProfile profile;
  profile.set_run(request.run());
  PD_RETURN_IF_ERROR(VisitProfiles(request, [&](v1::WorkerProfile worker) {
    *profile.add_workers() = std::move(worker);
    return absl::OkStatus();
  }));
  return profile;
}

absl::StatusOr<v1::RunDigest> Store::GetRunDigest(
    const v1::GetRunDigestRequest& request) const {
  // Every worker: the ranks asked for are reduced, but collectives are
  // matched over all of them.
  v1::GetProfileRequest all;
  all.set_run(request.run());
  all.set_operator_grouping(request.operator_grouping());
  all.set_kernel_grouping(request.kernel_grouping());
  analysis::RunDigestBuilder builder(
      request.run(),
      std::vector<int32_t>(request.ranks().begin(), request.ranks().end()));
  PD_RETURN_IF_ERROR(VisitProfiles(all, [&](const v1::WorkerProfile& worker) {
    return builder.Add(worker);
  }));
  return builder.Finish();
}

absl::StatusOr<v1::ListDamagedSpansResponse> Store::ListDamagedSpans(
    const v1::ListDamagedSpansRequest& /*request*/) const {
  return v1::ListDamagedSpansResponse();
}

}  // namespace profdiff::aggregator
