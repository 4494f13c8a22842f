#include "differ/run_tables_diff.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "analysis/digest_communication.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "differ/change_class.h"
#include "differ/communication_diff.h"
#include "differ/noise.h"
#include "differ/row_order.h"
#include "differ/side.h"
#include "differ/table_diff.h"

namespace profdiff::differ {
namespace {

template <typename Values>
struct Pair {
  const Values* side[2] = {nullptr, nullptr};
  Values Of(int s) const { return side[s] != nullptr ? *side[s] : Values(); }
  bool Ran(int s) const { return side[s] != nullptr && side[s]->calls() > 0; }
};

// The rows of both sides by (name, detail), in name order.
template <typename Values, typename Rows, typename Detail>
std::map<std::pair<std::string, std::string>, Pair<Values>> Paired(
    const Rows& baseline, const Rows& experimental, Detail detail) {
  std::map<std::pair<std::string, std::string>, Pair<Values>> out;
  const Rows* sides[2] = {&baseline, &experimental};
  for (int s = 0; s < 2; ++s) {
    for (const auto& row : *sides[s])
      out[{row.name(), detail(row)}].side[s] = &row.values();
  }
  return out;
}

v1::RunSummary Summary(const v1::RunTables& tables) {
  v1::RunSummary out;
  out.set_run(tables.run());
  for (int32_t rank : tables.ranks()) out.add_ranks(rank);
  return out;
}

}  // namespace

absl::Status CheckTablesFromStoreOptions(const v1::DiffOptions& options) {
  if (options.compare() == v1::COMPARE_MODE_HTA) {
    return absl::InvalidArgumentError(
        "--tables-from-store: HTA mode needs the profiles' steps");
  }
  if (!options.path().empty()) {
    return absl::InvalidArgumentError(
        "--tables-from-store: --path needs the profiles' module trees");
  }
  for (const int view : options.views()) {
    if (view != v1::DIFF_VIEW_OPERATORS && view != v1::DIFF_VIEW_KERNELS &&
        view != v1::DIFF_VIEW_COMMUNICATION) {
      return absl::InvalidArgumentError(
          base::StrCat("--tables-from-store compares operators, kernels and "
                       "communication only, not ",
                       v1::DiffView_Name(static_cast<v1::DiffView>(view))));
    }
  }
  if (options.per_rank() || options.node_tables()) {
    return absl::InvalidArgumentError(
        "--tables-from-store: --per-rank and per-module tables need the "
        "profiles");
  }
  if (options.ranks_size() > 1) {
    return absl::InvalidArgumentError(base::StrCat(
        "--tables-from-store: the store reduces all ranks or one, not ",
        options.ranks_size()));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::DiffReport> DiffRunTables(const v1::RunTables& baseline,
                                             const v1::RunTables& experimental,
                                             const v1::DiffOptions& options) {
  PD_RETURN_IF_ERROR(CheckTablesFromStoreOptions(options));
  // No step times here to scale the default absolute threshold by.
  PD_ASSIGN_OR_RETURN(const ChangeThreshold threshold,
                      ChangeThresholdOf(options, 0));
  v1::DiffReport report;
  *report.mutable_options() = options;
  *report.mutable_baseline() = Summary(baseline);
  *report.mutable_experimental() = Summary(experimental);
  report.add_warnings(base::StrCat(
      "operators and kernels reduced by the store over ", baseline.workers(),
      " baseline and ", experimental.workers(),
      " experimental workers: no steps, modules or per-step noise; changes are "
      "judged by --min-change",
      options.has_min_change_us() ? " and --min-change-us" : " alone"));
  const bool all_views = options.views().empty();
  const auto wants = [&](v1::DiffView view) {
    return all_views ||
           std::find(options.views().begin(), options.views().end(), view) !=
               options.views().end();
  };
  if (wants(v1::DIFF_VIEW_COMMUNICATION)) {
    // The store keeps each rank's per-step samples of the collectives: their
    // noise is judged as in the profile-by-profile diff.
    *report.mutable_communication() = DiffCommunication(
        analysis::DigestCommunicationOf(baseline.communication()),
        analysis::DigestCommunicationOf(experimental.communication()),
        threshold, options.normalize() != v1::NORMALIZATION_TOTAL);
  }
  if (wants(v1::DIFF_VIEW_OPERATORS)) {
    const auto rows = Paired<v1::OperatorValues>(
        baseline.operators(), experimental.operators(),
        [](const v1::OperatorRunRow& row) { return row.input_shapes(); });
    for (const auto& [key, pair] : rows) {
      v1::OperatorDiff& row = *report.add_operators();
      row.set_name(key.first);
      row.set_input_shapes(key.second);
      *row.mutable_baseline() = pair.Of(0);
      *row.mutable_experimental() = pair.Of(1);
      SetDeltas(row);
      row.set_compared(
          ComparedOperatorColumn(row.baseline(), row.experimental()));
      const bool device =
          row.compared() == v1::OPERATOR_COMPARED_DEVICE_TOTAL_US;
      row.set_change(ChangeClass(pair.Ran(0), pair.Ran(1),
                                 device ? row.baseline().device_total_us()
                                        : row.baseline().host_total_us(),
                                 device ? row.experimental().device_total_us()
                                        : row.experimental().host_total_us(),
                                 v1::Noise(), threshold));
    }
    PD_RETURN_IF_ERROR(
        OrderRows(OperatorDiffControls(options), *report.mutable_operators()));
  }
  if (wants(v1::DIFF_VIEW_KERNELS)) {
    const auto rows = Paired<v1::KernelValues>(
        baseline.kernels(), experimental.kernels(),
        [](const v1::KernelRunRow& row) { return row.op_name(); });
    for (const auto& [key, pair] : rows) {
      v1::KernelDiff& row = *report.add_kernels();
      row.set_name(key.first);
      row.set_op_name(key.second);
      *row.mutable_baseline() = pair.Of(0);
      *row.mutable_experimental() = pair.Of(1);
      SetDeltas(row);
      row.set_change(
          ChangeClass(pair.Ran(0), pair.Ran(1), row.baseline().total_us(),
                      row.experimental().total_us(), v1::Noise(), threshold));
    }
    PD_RETURN_IF_ERROR(
        OrderRows(KernelDiffControls(options), *report.mutable_kernels()));
  }
  return report;
}

}  // namespace profdiff::differ
