#include "aggregator/store/store.h"

#include "aggregator/store/run_tables.h"
#include "base/status_macros.h"

namespace profdiff::aggregator {

absl::StatusOr<v1::RunTables> Store::GetRunTables(
    const v1::GetRunTablesRequest& request) const {
  v1::GetProfileRequest profiles;
  profiles.set_run(request.run());
  *profiles.mutable_workers() = request.workers();
  PD_ASSIGN_OR_RETURN(const v1::RunProfile profile, GetProfile(profiles));
  return RunTablesOf(profile, request.normalize());
}

absl::StatusOr<v1::ListDamagedSpansResponse> Store::ListDamagedSpans(
    const v1::ListDamagedSpansRequest& /*request*/) const {
  return v1::ListDamagedSpansResponse();
}

}  // namespace profdiff::aggregator
