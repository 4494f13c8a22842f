#include "differ/differ.h"

#include <algorithm>
#include <thread>
#include <utility>

#include <absl/cleanup/cleanup.h>

#include "analysis/module_node_tables.h"
#include "analysis/run_digest.h"
#include "analysis/run_digest_check.h"
#include "base/one_shot_process.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "differ/communication_diff.h"
#include "differ/findings.h"
#include "differ/hta_diff.h"
#include "differ/memory_diff.h"
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

// The default absolute threshold: this share of the baseline's mean step time.
constexpr double kDefaultMinChangeStepShare = 0.001;

// Differences in how the two sides were recorded that change what the numbers
// mean, and what the digests say of their workers and runs.
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
    // Few kept steps; what the profiles' bounds folded
    // (analysis/profile_limits.h).
    for (const std::string& note : side->digest().worker_notes())
      report.add_warnings(base::StrCat(side->label(), " ", note));
  }
  // What reading the runs' paths passed over.
  for (const Side* side : {&a, &b}) {
    for (const std::string& warning : side->digest().run_warnings())
      report.add_warnings(base::StrCat(side->label(), ": ", warning));
  }
}

}  // namespace

absl::StatusOr<v1::RunDigest> DigestForDiff(const v1::RunProfile& run,
                                            const v1::DiffOptions& options,
                                            std::string_view label,
                                            analysis::DigestOptions digest) {
  absl::StatusOr<v1::RunDigest> made = analysis::DigestOfRun(
      run, std::vector<int32_t>(options.ranks().begin(), options.ranks().end()),
      digest);
  if (!made.ok()) {
    return absl::Status(made.status().code(),
                        base::StrCat(label, " ", made.status().message()));
  }
  return made;
}

absl::StatusOr<v1::DiffReport> DiffRuns(
    const v1::RunProfile& baseline, const v1::RunProfile& experimental,
    const v1::DiffOptions& options,
    const analysis::DeferredRunTables* const deferred[2]) {
  if (deferred != nullptr &&
      (options.node_tables() || options.compare() == v1::COMPARE_MODE_HTA)) {
    return absl::FailedPreconditionError(
        "DiffRuns: profiles without their module nodes' tables cannot serve "
        "node_tables or --compare hta");
  }
  // The two sides reduce independently: the baseline on a thread of its own
  // (a tenth of a CLI diff of two large traces). Unless every node's tables
  // are asked for, the module nodes' rows are reduced only for the nodes the
  // diff reads: making them all was two thirds of a full diff's digests of
  // two large traces.
  const analysis::DigestOptions digest_options{.node_tables =
                                                   options.node_tables()};
  absl::StatusOr<v1::RunDigest> baseline_digest;
  absl::StatusOr<v1::RunDigest> experimental_digest;
  {
    std::jthread side([&] {
      baseline_digest =
          DigestForDiff(baseline, options, "baseline", digest_options);
    });
    experimental_digest =
        DigestForDiff(experimental, options, "experimental", digest_options);
  }
  PD_ASSIGN_OR_RETURN(v1::RunDigest a, std::move(baseline_digest));
  PD_ASSIGN_OR_RETURN(v1::RunDigest b, std::move(experimental_digest));
  // Destroying two large traces' digests, a message per module node and row,
  // was 5M of a CLI diff's 1,289M instructions, on its serial tail: a one-shot
  // process keeps them.
  const absl::Cleanup discard = [&a, &b] {
    base::Discard(a);
    base::Discard(b);
  };
  // Digests reduced here need no check (a tenth of the diff of two large
  // traces).
  if (options.compare() != v1::COMPARE_MODE_HTA) {
    if (digest_options.node_tables) return DiffCheckedDigests(a, b, options);
    const analysis::ModuleNodeTables tables[2] = {
        {baseline, a, deferred != nullptr ? deferred[0] : nullptr},
        {experimental, b, deferred != nullptr ? deferred[1] : nullptr}};
    const analysis::ModuleNodeTables* const node_tables[2] = {&tables[0],
                                                              &tables[1]};
    return DiffCheckedDigests(a, b, options, node_tables);
  }
  // HTA's compare counts events per ProfilerStep: the profiles' step tables.
  const Side sa(a, options.normalize(), "baseline");
  const Side sb(b, options.normalize(), "experimental");
  PD_RETURN_IF_ERROR(ChangeThresholdOf(options, 0).status());
  v1::DiffReport report;
  *report.mutable_options() = options;
  *report.mutable_baseline() = SummarizeSide(sa);
  *report.mutable_experimental() = SummarizeSide(sb);
  PD_RETURN_IF_ERROR(DiffHta(baseline, experimental, options, report));
  PD_RETURN_IF_ERROR(
      OrderRows(RowControls::Of(options), *report.mutable_hta_rows()));
  return report;
}

absl::StatusOr<v1::DiffReport> DiffDigests(const v1::RunDigest& baseline,
                                           const v1::RunDigest& experimental,
                                           const v1::DiffOptions& options) {
  if (options.compare() == v1::COMPARE_MODE_HTA) {
    return absl::InvalidArgumentError(
        "--compare hta counts events per step: it needs the runs' profiles");
  }
  // What the diff indexes is there (a digest may come from a store).
  for (const auto& [label, digest] :
       {std::pair{"baseline", &baseline},
        std::pair{"experimental", &experimental}}) {
    if (absl::Status valid = analysis::ValidateRunDigest(*digest); !valid.ok())
      return base::Annotate(valid, label);
  }
  return DiffCheckedDigests(baseline, experimental, options);
}

absl::StatusOr<v1::DiffReport> DiffCheckedDigests(
    const v1::RunDigest& baseline, const v1::RunDigest& experimental,
    const v1::DiffOptions& options,
    const analysis::ModuleNodeTables* const node_tables[2]) {
  v1::DiffReport report;
  *report.mutable_options() = options;
  const Side a(baseline, options.normalize(), "baseline",
               node_tables != nullptr ? node_tables[0] : nullptr);
  const Side b(experimental, options.normalize(), "experimental",
               node_tables != nullptr ? node_tables[1] : nullptr);
  PD_ASSIGN_OR_RETURN(
      const ChangeThreshold threshold,
      ChangeThresholdOf(options, kDefaultMinChangeStepShare * MeanStepTime(a)));
  *report.mutable_baseline() = SummarizeSide(a);
  *report.mutable_experimental() = SummarizeSide(b);
  AddWarnings(a, b, report);
  // Findings read every view of the whole step, whatever the report prints.
  const bool findings = Wants(options, v1::DIFF_VIEW_FINDINGS);
  v1::Overview overview;
  if (Wants(options, v1::DIFF_VIEW_OVERVIEW) || findings)
    overview = DiffOverview(a, b, threshold);
  std::vector<v1::RankSteps> ranks_rows;
  if (Wants(options, v1::DIFF_VIEW_RANKS) || findings)
    ranks_rows = RankStepsOf(a, b);
  const OperatorTables step_operators[2] = {&baseline.operators(),
                                            &experimental.operators()};
  const KernelTables step_kernels[2] = {&baseline.kernels(),
                                        &experimental.kernels()};
  OperatorTables operators[2] = {step_operators[0], step_operators[1]};
  KernelTables kernels[2] = {step_kernels[0], step_kernels[1]};
  v1::ModuleDiffNode whole_tree;  // for findings, when the report lacks it
  NodeSides node_sides;           // for findings that look inside modules
  if (Wants(options, v1::DIFF_VIEW_MODULES) || !options.path().empty() ||
      findings) {
    PD_ASSIGN_OR_RETURN(
        ModuleDiff modules,
        DiffModules(a, b, options.path(), threshold, options.node_tables()));
    node_sides = std::move(modules.sides);
    if (!options.path().empty()) {
      // The operator and kernel tables show only what ran inside the node.
      for (int s = 0; s < 2; ++s) {
        operators[s] = modules.operators[s];
        kernels[s] = modules.kernels[s];
      }
    }
    if (findings && !options.path().empty()) {
      PD_ASSIGN_OR_RETURN(ModuleDiff whole, DiffModules(a, b, "", threshold));
      whole_tree = std::move(whole.node);
    }
    for (std::string& warning : IncomparableSubtreeWarnings(modules.node)) {
      report.add_warnings(std::move(warning));
    }
    if (Wants(options, v1::DIFF_VIEW_MODULES)) {
      *report.mutable_modules() = std::move(modules.node);
    } else if (options.path().empty()) {
      whole_tree = std::move(modules.node);
    }
  }
  std::vector<v1::OperatorDiff> operator_rows;
  if (Wants(options, v1::DIFF_VIEW_OPERATORS) || findings)
    operator_rows = DiffOperators(a, operators[0], b, operators[1], threshold);
  v1::CommunicationDiff communication;
  if (Wants(options, v1::DIFF_VIEW_COMMUNICATION) || findings) {
    // Instances were matched over every rank of a run, whichever are shown.
    communication = DiffCommunication(baseline.communication(),
                                      experimental.communication(), threshold,
                                      a.per_step());
  }
  v1::MemoryDiff memory;
  if (Wants(options, v1::DIFF_VIEW_MEMORY) || findings)
    memory = DiffMemory(a, b, threshold);
  std::vector<v1::KernelDiff> kernel_rows;
  if (Wants(options, v1::DIFF_VIEW_KERNELS) || findings)
    kernel_rows = DiffKernels(a, kernels[0], b, kernels[1], threshold);

  if (findings) {
    std::vector<v1::OperatorDiff> step_operator_rows;
    std::vector<v1::KernelDiff> step_kernel_rows;
    if (!options.path().empty()) {
      step_operator_rows =
          DiffOperators(a, step_operators[0], b, step_operators[1], threshold);
      step_kernel_rows =
          DiffKernels(a, step_kernels[0], b, step_kernels[1], threshold);
    }
    FindingInputs in;
    in.overview = &overview;
    // The report's tree when it is the whole one (no --path), else its own.
    in.modules = options.path().empty() && Wants(options, v1::DIFF_VIEW_MODULES)
                     ? &report.modules()
                     : &whole_tree;
    in.operators =
        options.path().empty() ? &operator_rows : &step_operator_rows;
    in.kernels = options.path().empty() ? &kernel_rows : &step_kernel_rows;
    in.ranks = &ranks_rows;
    in.communication = &communication;
    in.memory = &memory;
    in.threshold = threshold;
    in.per_step = options.normalize() != v1::NORMALIZATION_TOTAL;
    in.inside =
        [&](const std::string& index_path) -> absl::StatusOr<ScopedTables> {
      OperatorTables node_operators[2];
      KernelTables node_kernels[2];
      TablesInside(a, b, node_sides, index_path, node_operators, node_kernels);
      ScopedTables tables;
      tables.operators =
          DiffOperators(a, node_operators[0], b, node_operators[1], threshold);
      tables.kernels =
          DiffKernels(a, node_kernels[0], b, node_kernels[1], threshold);
      return tables;
    };
    PD_ASSIGN_OR_RETURN(std::vector<v1::Finding> found, FindFindings(in));
    for (v1::Finding& f : found) *report.add_findings() = std::move(f);
  }
  if (Wants(options, v1::DIFF_VIEW_OVERVIEW))
    *report.mutable_overview() = std::move(overview);
  if (Wants(options, v1::DIFF_VIEW_COMMUNICATION))
    *report.mutable_communication() = std::move(communication);
  if (Wants(options, v1::DIFF_VIEW_MEMORY))
    *report.mutable_memory() = std::move(memory);
  if (Wants(options, v1::DIFF_VIEW_RANKS)) {
    for (v1::RankSteps& rank : ranks_rows)
      *report.add_ranks() = std::move(rank);
  }
  if (Wants(options, v1::DIFF_VIEW_OPERATORS)) {
    for (v1::OperatorDiff& row : operator_rows)
      *report.add_operators() = std::move(row);
    PD_RETURN_IF_ERROR(
        OrderRows(OperatorDiffControls(options), *report.mutable_operators()));
  }
  if (Wants(options, v1::DIFF_VIEW_KERNELS)) {
    for (v1::KernelDiff& row : kernel_rows)
      *report.add_kernels() = std::move(row);
    PD_RETURN_IF_ERROR(
        OrderRows(KernelDiffControls(options), *report.mutable_kernels()));
  }
  return report;
}

}  // namespace profdiff::differ
