#include "aggregator/store/store.h"

#include "aggregator/store/run_tables.h"
#include "analysis/run_communication.h"
#include "base/status_macros.h"

namespace profdiff::aggregator {

absl::StatusOr<v1::RunTables> Store::GetRunTables(
    const v1::GetRunTablesRequest& request) const {
  v1::GetProfileRequest profiles;
  profiles.set_run(request.run());
  *profiles.mutable_workers() = request.workers();
  PD_ASSIGN_OR_RETURN(const v1::RunProfile profile, GetProfile(profiles));
  v1::RunTables tables = RunTablesOf(profile, request.normalize());
  PD_ASSIGN_OR_RETURN(*tables.mutable_communication(),
                      RunCommunication(request.run(), tables.ranks()));
  return tables;
}

absl::StatusOr<v1::RunCommunication> Store::RunCommunication(
    const std::string& run,
    const google::protobuf::RepeatedField<int32_t>& ranks) const {
  // Instances are matched over every worker of the run, whichever are shown.
  v1::GetProfileRequest all;
  all.set_run(run);
  PD_ASSIGN_OR_RETURN(const v1::RunProfile profile, GetProfile(all));
  return analysis::RunCommunicationOf(
      {profile.workers().pointer_begin(), profile.workers().pointer_end()},
      {ranks.begin(), ranks.end()});
}

absl::StatusOr<v1::ListDamagedSpansResponse> Store::ListDamagedSpans(
    const v1::ListDamagedSpansRequest& /*request*/) const {
  return v1::ListDamagedSpansResponse();
}

}  // namespace profdiff::aggregator
