#include "differ/service/store_differ.h"

#include <thread>

#include "base/id_rules.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "differ/differ.h"
#include "differ/run_tables_diff.h"

namespace profdiff::differ {
namespace {

// NAME (UNSPECIFIED means it too, one cache entry for both spellings) or
// `other`, the one other grouping the table has; InvalidArgument naming the
// field otherwise.
absl::StatusOr<v1::Grouping> CheckedGrouping(std::string_view field,
                                             v1::Grouping grouping,
                                             v1::Grouping other) {
  if (grouping == v1::GROUPING_UNSPECIFIED || grouping == v1::GROUPING_NAME)
    return v1::GROUPING_NAME;
  if (grouping == other) return grouping;
  return absl::InvalidArgumentError(base::StrCat(
      field, ": expected GROUPING_NAME or ", v1::Grouping_Name(other), ", got ",
      static_cast<int>(grouping)));
}

}  // namespace

absl::StatusOr<v1::DiffReport> DiffStoredRuns(const StoredProfiles& store,
                                              const v1::DiffRequest& request,
                                              absl::Time deadline) {
  if (!request.options().tables_from_store()) {
    return DiffFetchedRuns(request, [&](const ProfileKey& key) {
      return store.Fetch(key, deadline);
    });
  }
  PD_RETURN_IF_ERROR(base::ValidateId("baseline_run", request.baseline_run()));
  PD_RETURN_IF_ERROR(
      base::ValidateId("experimental_run", request.experimental_run()));
  PD_RETURN_IF_ERROR(CheckTablesFromStoreOptions(request.options()));
  for (const v1::Grouping grouping :
       {request.operator_grouping(), request.kernel_grouping()}) {
    if (grouping != v1::GROUPING_UNSPECIFIED && grouping != v1::GROUPING_NAME) {
      return absl::InvalidArgumentError(
          "--tables-from-store: the stored tables group by name");
    }
  }
  absl::StatusOr<v1::RunTables> baseline = absl::UnknownError("not fetched");
  std::jthread fetch_baseline([&] {
    baseline =
        store.FetchTables(request.baseline_run(), request.options(), deadline);
  });
  absl::StatusOr<v1::RunTables> experimental = store.FetchTables(
      request.experimental_run(), request.options(), deadline);
  fetch_baseline.join();
  PD_RETURN_IF_ERROR(baseline.status());
  PD_RETURN_IF_ERROR(experimental.status());
  return DiffRunTables(*baseline, *experimental, request.options());
}

absl::StatusOr<v1::DiffReport> DiffFetchedRuns(const v1::DiffRequest& request,
                                               const ProfileFetcher& fetch) {
  PD_RETURN_IF_ERROR(base::ValidateId("baseline_run", request.baseline_run()));
  PD_RETURN_IF_ERROR(
      base::ValidateId("experimental_run", request.experimental_run()));
  PD_ASSIGN_OR_RETURN(
      const v1::Grouping operator_grouping,
      CheckedGrouping("operator_grouping", request.operator_grouping(),
                      v1::GROUPING_NAME_AND_SHAPE));
  PD_ASSIGN_OR_RETURN(
      const v1::Grouping kernel_grouping,
      CheckedGrouping("kernel_grouping", request.kernel_grouping(),
                      v1::GROUPING_NAME_AND_OP));
  const auto key = [&](const std::string& run) {
    return ProfileKey{.run = run,
                      .operator_grouping = operator_grouping,
                      .kernel_grouping = kernel_grouping};
  };
  // Two fetches wait on the network (and a cold profile build on the
  // aggregator): overlap them.
  absl::StatusOr<StoredProfile> baseline = absl::UnknownError("not fetched");
  std::jthread fetch_baseline(
      [&] { baseline = fetch(key(request.baseline_run())); });
  absl::StatusOr<StoredProfile> experimental =
      fetch(key(request.experimental_run()));
  fetch_baseline.join();
  PD_RETURN_IF_ERROR(baseline.status());
  PD_RETURN_IF_ERROR(experimental.status());
  PD_ASSIGN_OR_RETURN(
      v1::DiffReport report,
      DiffRuns(*baseline->profile, *experimental->profile, request.options()));
  for (std::string& warning : baseline->warnings)
    report.add_warnings(std::move(warning));
  for (std::string& warning : experimental->warnings)
    report.add_warnings(std::move(warning));
  return report;
}

}  // namespace profdiff::differ
