#include "differ/run_completeness.h"

#include <set>

#include "base/str_cat.h"

namespace profdiff::differ {
std::string_view RunStateName(v1::RunState state) {
  switch (state) {
    case v1::RUN_STATE_OPEN:
      return "OPEN";
    case v1::RUN_STATE_PARTIAL:
      return "PARTIAL";
    case v1::RUN_STATE_COMPLETE:
      return "COMPLETE";
    default:
      return "UNKNOWN";
  }
}

std::optional<std::string> IncompleteRunWarning(const v1::StoredRun& run) {
  if (run.state() == v1::RUN_STATE_COMPLETE) return std::nullopt;
  // Ranks with a closed span: the store reduces them (building a profile not
  // stored yet).
  const std::set<int32_t> stored(run.closed_ranks().begin(),
                                 run.closed_ranks().end());
  // Missing ranks as ranges; a huge world size costs one pass, never a huge
  // message.
  std::string missing;
  int ranges = 0;
  int64_t unlisted = 0;
  for (int32_t rank = 0; rank < run.world_size();) {
    if (stored.contains(rank)) {
      ++rank;
      continue;
    }
    int32_t last = rank;
    while (last + 1 < run.world_size() && !stored.contains(last + 1)) ++last;
    if (ranges < kMaxMissingRankRanges) {
      base::StrAppend(&missing, missing.empty() ? "" : ", ", rank);
      if (last > rank) base::StrAppend(&missing, "-", last);
      ++ranges;
    } else {
      unlisted += int64_t{last} - rank + 1;
    }
    rank = last + 1;
  }
  if (unlisted > 0) base::StrAppend(&missing, " and ", unlisted, " more ranks");
  // Not COMPLETE here: OPEN, PARTIAL, or a state this build does not know.
  const bool known =
      run.state() == v1::RUN_STATE_OPEN || run.state() == v1::RUN_STATE_PARTIAL;
  std::string warning =
      base::StrCat("run ", run.run(), " is ",
                   known ? RunStateName(run.state()) : "in an unknown state",
                   ": ", stored.size(), " of ");
  if (run.world_size() > 0) {
    base::StrAppend(&warning, run.world_size(), " ranks stored");
  } else {
    base::StrAppend(&warning, "an unknown number of ranks stored");
  }
  if (!missing.empty()) base::StrAppend(&warning, ", missing ranks ", missing);
  base::StrAppend(
      &warning,
      run.state() == v1::RUN_STATE_OPEN ? " (spans still arriving)" : "",
      "; the diff covers the stored ranks only");
  return warning;
}

std::vector<std::string> RunWarnings(const v1::StoredRun& run) {
  std::vector<std::string> warnings;
  if (std::optional<std::string> incomplete = IncompleteRunWarning(run)) {
    warnings.push_back(*std::move(incomplete));
  }
  for (const std::string& warning : run.warnings()) {
    warnings.push_back(base::StrCat("run ", run.run(), ": ", warning));
  }
  return warnings;
}

}  // namespace profdiff::differ
