#include "differ/differ.h"

#include <algorithm>

#include "base/status_macros.h"
#include "base/str_cat.h"
#include "differ/hta_diff.h"
#include "differ/module_comparability.h"
#include "differ/module_diff.h"
#include "differ/noise.h"
#include "differ/overview_diff.h"
#include "differ/row_order.h"
#include "differ/side.h"
#include "differ/table_diff.h"

namespace profdiff::differ {
namespace {

bool Wants(const v1::DiffOptions& options, v1::DiffView view) {
  if (options.views().empty())
    return view != v1::DIFF_VIEW_RANKS || options.per_rank();
  return std::find(options.views().begin(), options.views().end(), view) !=
             options.views().end() ||
         (view == v1::DIFF_VIEW_RANKS && options.per_rank());
}

OperatorTables WorkerOperatorTables(const Side& side) {
  OperatorTables tables;
  for (const v1::WorkerProfile* w : side.workers())
    tables.push_back(&w->operators());
  return tables;
}

KernelTables WorkerKernelTables(const Side& side) {
  KernelTables tables;
  for (const v1::WorkerProfile* w : side.workers())
    tables.push_back(&w->kernels());
  return tables;
}

// The default absolute threshold: this share of the baseline's mean step time.
constexpr double kDefaultMinChangeStepShare = 0.001;

// Differences in how the two sides were recorded that change what the numbers
// mean.
void AddWarnings(const Side& a, const Side& b, v1::DiffReport& report) {
  const v1::RunSummary& sa = report.baseline();
  const v1::RunSummary& sb = report.experimental();
  if (sa.module_source() != sb.module_source()) {
    report.add_warnings(base::StrCat(
        "the module trees come from different sources (baseline: ",
        v1::ModuleTreeSource_Name(sa.module_source()),
        ", experimental: ", v1::ModuleTreeSource_Name(sb.module_source()),
        "); few nodes will match"));
  }
  for (const Side* side : {&a, &b}) {
    for (const v1::WorkerProfile* w : side->workers()) {
      if (w->steps_size() < 2) {
        report.add_warnings(base::StrCat(
            side->label(), " rank ", w->worker().rank(), " has ",
            w->steps_size(), " kept step", w->steps_size() == 1 ? "" : "s",
            ": no per-step noise estimate, changes are judged by "
            "the --min-change threshold alone"));
      }
      // What the profile's bounds folded (analysis/profile_limits.h).
      for (const std::string& warning : w->warnings()) {
        report.add_warnings(base::StrCat(side->label(), " rank ",
                                         w->worker().rank(), ": ", warning));
      }
    }
  }
}

}  // namespace

absl::StatusOr<v1::DiffReport> DiffRuns(const v1::RunProfile& baseline,
                                        const v1::RunProfile& experimental,
                                        const v1::DiffOptions& options) {
  if (options.tables_from_store()) {
    return absl::InvalidArgumentError(
        "--tables-from-store: the tables are reduced by a store; diff two run "
        "ids on a server");
  }
  v1::DiffReport report;
  *report.mutable_options() = options;
  ChangeThreshold threshold;
  threshold.min_pct = options.has_min_change_pct() ? options.min_change_pct()
                                                   : kDefaultMinChangePct;
  if (threshold.min_pct < 0 ||
      (options.has_min_change_us() && options.min_change_us() < 0)) {
    return absl::InvalidArgumentError(
        "--min-change / --min-change-us: must be >= 0");
  }
  const std::vector<int32_t> ranks(options.ranks().begin(),
                                   options.ranks().end());
  PD_ASSIGN_OR_RETURN(
      Side a, Side::Select(baseline, ranks, options.normalize(), "baseline"));
  PD_ASSIGN_OR_RETURN(
      Side b,
      Side::Select(experimental, ranks, options.normalize(), "experimental"));
  threshold.min_abs =
      options.has_min_change_us()
          ? options.min_change_us()
          : kDefaultMinChangeStepShare *
                MeanOverWorkers(a, [](const v1::WorkerProfile& w) {
                  return w.average_step().duration_us();
                });
  *report.mutable_baseline() = SummarizeSide(a);
  *report.mutable_experimental() = SummarizeSide(b);

  if (options.compare() == v1::COMPARE_MODE_HTA) {
    PD_RETURN_IF_ERROR(DiffHta(baseline, experimental, options, report));
    PD_RETURN_IF_ERROR(
        OrderRows(RowControls::Of(options), *report.mutable_hta_rows()));
    return report;
  }

  AddWarnings(a, b, report);
  if (Wants(options, v1::DIFF_VIEW_OVERVIEW))
    *report.mutable_overview() = DiffOverview(a, b, threshold);
  if (Wants(options, v1::DIFF_VIEW_RANKS)) {
    for (v1::RankSteps& rank : RankStepsOf(a, b))
      *report.add_ranks() = std::move(rank);
  }
  OperatorTables operators[2] = {WorkerOperatorTables(a),
                                 WorkerOperatorTables(b)};
  KernelTables kernels[2] = {WorkerKernelTables(a), WorkerKernelTables(b)};
  if (Wants(options, v1::DIFF_VIEW_MODULES) || !options.path().empty()) {
    PD_ASSIGN_OR_RETURN(
        ModuleDiff modules,
        DiffModules(a, b, options.path(), threshold, options.node_tables()));
    if (!options.path().empty()) {
      // The operator and kernel tables show only what ran inside the node.
      for (int s = 0; s < 2; ++s) {
        operators[s] = std::move(modules.operators[s]);
        kernels[s] = std::move(modules.kernels[s]);
      }
    }
    for (std::string& warning : IncomparableSubtreeWarnings(modules.node)) {
      report.add_warnings(std::move(warning));
    }
    if (Wants(options, v1::DIFF_VIEW_MODULES))
      *report.mutable_modules() = std::move(modules.node);
  }
  if (Wants(options, v1::DIFF_VIEW_OPERATORS)) {
    for (v1::OperatorDiff& row :
         DiffOperators(a, operators[0], b, operators[1], threshold)) {
      *report.add_operators() = std::move(row);
    }
    PD_RETURN_IF_ERROR(
        OrderRows(OperatorDiffControls(options), *report.mutable_operators()));
  }
  if (Wants(options, v1::DIFF_VIEW_KERNELS)) {
    for (v1::KernelDiff& row :
         DiffKernels(a, kernels[0], b, kernels[1], threshold)) {
      *report.add_kernels() = std::move(row);
    }
    PD_RETURN_IF_ERROR(
        OrderRows(KernelDiffControls(options), *report.mutable_kernels()));
  }
  return report;
}

}  // namespace profdiff::differ
