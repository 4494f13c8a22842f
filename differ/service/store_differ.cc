#include "differ/service/store_differ.h"

#include <thread>
#include <utility>

#include "base/id_rules.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "differ/differ.h"

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

// Both sides fetched at once (two fetches wait on the network, and a cold
// reduction on the aggregator), then diffed by `diff`, with the fetches'
// warnings. A side's InvalidArgument (none of the ranks asked for) names the
// side.
template <typename Fetched, typename Diff>
absl::StatusOr<v1::DiffReport> FetchAndDiff(
    const RunKey& baseline_key, const RunKey& experimental_key,
    const std::function<absl::StatusOr<Fetched>(const RunKey&)>& fetch,
    const Diff& diff) {
  absl::StatusOr<Fetched> baseline = absl::UnknownError("not fetched");
  absl::StatusOr<Fetched> experimental = baseline;
  {
    std::jthread fetch_baseline([&] { baseline = fetch(baseline_key); });
    experimental = fetch(experimental_key);
  }
  for (auto [side, fetched] : {std::pair{"baseline", &baseline},
                               std::pair{"experimental", &experimental}}) {
    const absl::Status& status = fetched->status();
    if (status.code() == absl::StatusCode::kInvalidArgument) {
      return absl::InvalidArgumentError(
          base::StrCat(side, " ", status.message()));
    }
    PD_RETURN_IF_ERROR(status);
  }
  PD_ASSIGN_OR_RETURN(v1::DiffReport report, diff(*baseline, *experimental));
  for (std::string& warning : baseline->warnings)
    report.add_warnings(std::move(warning));
  for (std::string& warning : experimental->warnings)
    report.add_warnings(std::move(warning));
  return report;
}

}  // namespace

absl::StatusOr<v1::DiffReport> DiffStoredRuns(const StoredRuns& store,
                                              const v1::DiffRequest& request,
                                              absl::Time deadline) {
  return DiffFetchedRuns(
      request,
      {.digest =
           [&](const RunKey& key) { return store.FetchDigest(key, deadline); },
       .profile =
           [&](const RunKey& key) {
             return store.FetchProfile(key, deadline);
           }});
}

absl::StatusOr<v1::DiffReport> DiffFetchedRuns(const v1::DiffRequest& request,
                                               const RunFetcher& fetch) {
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
  const v1::DiffOptions& options = request.options();
  const bool hta = options.compare() == v1::COMPARE_MODE_HTA;
  const auto key = [&](const std::string& run) {
    RunKey out{.run = run,
               .operator_grouping = operator_grouping,
               .kernel_grouping = kernel_grouping};
    // HTA reads every rank's steps only with --ranks all; by default the
    // lowest rank's, which it selects itself.
    if (!hta) out.ranks.assign(options.ranks().begin(), options.ranks().end());
    return out;
  };
  const RunKey baseline_key = key(request.baseline_run());
  const RunKey experimental_key = key(request.experimental_run());
  if (hta) {
    return FetchAndDiff(baseline_key, experimental_key, fetch.profile,
                        [&](const StoredProfile& a, const StoredProfile& b) {
                          return DiffRuns(*a.profile, *b.profile, options);
                        });
  }
  return FetchAndDiff(baseline_key, experimental_key, fetch.digest,
                      [&](const StoredDigest& a, const StoredDigest& b) {
                        return DiffDigests(*a.digest, *b.digest, options);
                      });
}

}  // namespace profdiff::differ
