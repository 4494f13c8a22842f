#include "differ/service/store_differ.h"

#include <thread>

#include "base/id_rules.h"
#include "base/status_macros.h"
#include "differ/differ.h"

namespace profdiff::differ {

absl::StatusOr<v1::DiffReport> DiffStoredRuns(const StoredProfiles& store,
                                              const v1::DiffRequest& request, absl::Time deadline) {
  PD_RETURN_IF_ERROR(base::ValidateId("baseline_run", request.baseline_run()));
  PD_RETURN_IF_ERROR(base::ValidateId("experimental_run", request.experimental_run()));
  // UNSPECIFIED groups by name: one cache entry for both spellings.
  const auto by_name_if_unset = [](v1::Grouping grouping) {
    return grouping == v1::GROUPING_UNSPECIFIED ? v1::GROUPING_NAME : grouping;
  };
  const auto key = [&](const std::string& run) {
    return ProfileKey{.run = run,
                      .operator_grouping = by_name_if_unset(request.operator_grouping()),
                      .kernel_grouping = by_name_if_unset(request.kernel_grouping())};
  };
  // Two fetches wait on the network (and a cold profile build on the aggregator): overlap them.
  absl::StatusOr<StoredProfile> baseline = absl::UnknownError("not fetched");
  std::jthread fetch_baseline([&] { baseline = store.Fetch(key(request.baseline_run()), deadline); });
  absl::StatusOr<StoredProfile> experimental = store.Fetch(key(request.experimental_run()), deadline);
  fetch_baseline.join();
  PD_RETURN_IF_ERROR(baseline.status());
  PD_RETURN_IF_ERROR(experimental.status());
  PD_ASSIGN_OR_RETURN(v1::DiffReport report,
                      DiffRuns(*baseline->profile, *experimental->profile, request.options()));
  for (std::string& warning : baseline->warnings) report.add_warnings(std::move(warning));
  for (std::string& warning : experimental->warnings) report.add_warnings(std::move(warning));
  return report;
}

}  // namespace profdiff::differ
