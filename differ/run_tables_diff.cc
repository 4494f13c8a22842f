#include "differ/run_tables_diff.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "base/status_macros.h"
#include "base/str_cat.h"
#include "differ/change_class.h"
#include "differ/noise.h"
#include "differ/row_order.h"
#include "differ/side.h"
#include "differ/table_diff.h"

namespace profdiff::differ {
namespace {

template <typename Values>
struct Pair {
  const Values* side[2] = {nullptr, nullptr};
};

v1::RunSummary Summary(const v1::RunTables& tables) {
  v1::RunSummary out;
  out.set_run(tables.run());
  for (int32_t rank : tables.ranks()) out.add_ranks(rank);
  return out;
}

}  // namespace

absl::Status CheckTablesFromStoreOptions(const v1::DiffOptions& options) {
  if (options.compare() == v1::COMPARE_MODE_HTA) {
    return absl::InvalidArgumentError("--tables-from-store: HTA mode needs the profiles' steps");
  }
  if (!options.path().empty()) {
    return absl::InvalidArgumentError("--tables-from-store: --path needs the profiles' module trees");
  }
  for (const int view : options.views()) {
    if (view != v1::DIFF_VIEW_OPERATORS && view != v1::DIFF_VIEW_KERNELS) {
      return absl::InvalidArgumentError(base::StrCat(
          "--tables-from-store compares operators and kernels only, not ", v1::DiffView_Name(
                                                                             static_cast<v1::DiffView>(view))));
    }
  }
  if (options.per_rank() || options.node_tables()) {
    return absl::InvalidArgumentError("--tables-from-store: --per-rank and per-module tables need the profiles");
  }
  if (options.ranks_size() > 1) {
    return absl::InvalidArgumentError(base::StrCat("--tables-from-store: the store reduces all ranks or one, not ",
                                                   options.ranks_size()));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::DiffReport> DiffRunTables(const v1::RunTables& baseline, const v1::RunTables& experimental,
                                             const v1::DiffOptions& options) {
  PD_RETURN_IF_ERROR(CheckTablesFromStoreOptions(options));
  ChangeThreshold threshold;
  threshold.min_pct = options.has_min_change_pct() ? options.min_change_pct() : kDefaultMinChangePct;
  if (threshold.min_pct < 0 || (options.has_min_change_us() && options.min_change_us() < 0)) {
    return absl::InvalidArgumentError("--min-change / --min-change-us: must be >= 0");
  }
  // No step times here to scale the default absolute threshold by.
  threshold.min_abs = options.has_min_change_us() ? options.min_change_us() : 0;
  v1::DiffReport report;
  *report.mutable_options() = options;
  *report.mutable_baseline() = Summary(baseline);
  *report.mutable_experimental() = Summary(experimental);
  report.add_warnings(base::StrCat(
      "operators and kernels reduced by the store over ", baseline.workers(), " baseline and ",
      experimental.workers(), " experimental workers: no steps, modules or per-step noise; changes are "
      "judged by --min-change", options.has_min_change_us() ? " and --min-change-us" : " alone"));
  const bool all_views = options.views().empty();
  const auto wants = [&](v1::DiffView view) {
    return all_views || std::find(options.views().begin(), options.views().end(), view) != options.views().end();
  };
  const v1::RunTables* sides[2] = {&baseline, &experimental};
  if (wants(v1::DIFF_VIEW_OPERATORS)) {
    std::map<std::pair<std::string, std::string>, Pair<v1::OperatorValues>> rows;
    for (int s = 0; s < 2; ++s) {
      for (const v1::OperatorRunRow& row : sides[s]->operators()) rows[{row.name(), row.input_shapes()}].side[s] = &row.values();
    }
    for (const auto& [key, pair] : rows) {
      const v1::OperatorValues a = pair.side[0] != nullptr ? *pair.side[0] : v1::OperatorValues();
      const v1::OperatorValues b = pair.side[1] != nullptr ? *pair.side[1] : v1::OperatorValues();
      v1::OperatorDiff& row = *report.add_operators();
      row.set_name(key.first);
      row.set_input_shapes(key.second);
      *row.mutable_baseline() = a;
      *row.mutable_experimental() = b;
      SetDeltas(row);
      row.set_compared(ComparedOperatorColumn(a, b));
      const bool device = row.compared() == "device_total_us";
      const double va = device ? a.device_total_us() : a.host_total_us();
      const double vb = device ? b.device_total_us() : b.host_total_us();
      row.set_change(ChangeClass(pair.side[0] != nullptr && a.calls() > 0, pair.side[1] != nullptr && b.calls() > 0,
                                 va, vb, v1::Noise(), threshold));
    }
    PD_RETURN_IF_ERROR(OrderOperatorRows(options, *report.mutable_operators()));
  }
  if (wants(v1::DIFF_VIEW_KERNELS)) {
    std::map<std::pair<std::string, std::string>, Pair<v1::KernelValues>> rows;
    for (int s = 0; s < 2; ++s) {
      for (const v1::KernelRunRow& row : sides[s]->kernels()) rows[{row.name(), row.op_name()}].side[s] = &row.values();
    }
    for (const auto& [key, pair] : rows) {
      const v1::KernelValues a = pair.side[0] != nullptr ? *pair.side[0] : v1::KernelValues();
      const v1::KernelValues b = pair.side[1] != nullptr ? *pair.side[1] : v1::KernelValues();
      v1::KernelDiff& row = *report.add_kernels();
      row.set_name(key.first);
      row.set_op_name(key.second);
      *row.mutable_baseline() = a;
      *row.mutable_experimental() = b;
      SetDeltas(row);
      row.set_change(ChangeClass(pair.side[0] != nullptr && a.calls() > 0, pair.side[1] != nullptr && b.calls() > 0,
                                 a.total_us(), b.total_us(), v1::Noise(), threshold));
    }
    PD_RETURN_IF_ERROR(OrderKernelRows(options, *report.mutable_kernels()));
  }
  return report;
}

}  // namespace profdiff::differ
