#include "differ/overview_diff.h"

#include <algorithm>
#include <array>
#include <functional>
#include <string>

#include "analysis/run_digest.h"
#include "differ/noise.h"

namespace profdiff::differ {
namespace {

// A step metric: its overview row and whether only a GPU run has it (a CPU run
// has no kernel time, not zero kernel time), in DigestOverview.step_metrics'
// order.
struct StepMetric {
  v1::OverviewMetric metric;
  analysis::DigestStepMetric digest;
  bool device_only;
};

constexpr std::array<StepMetric, analysis::kStepMetrics> kStepMetrics = {{
    {v1::OVERVIEW_METRIC_STEP_TIME, analysis::kStepTime, false},
    {v1::OVERVIEW_METRIC_KERNEL, analysis::kStepKernel, true},
    {v1::OVERVIEW_METRIC_MEMCPY, analysis::kStepMemcpy, true},
    {v1::OVERVIEW_METRIC_MEMSET, analysis::kStepMemset, true},
    {v1::OVERVIEW_METRIC_COMMUNICATION, analysis::kStepCommunication, false},
    {v1::OVERVIEW_METRIC_RUNTIME, analysis::kStepRuntime, true},
    {v1::OVERVIEW_METRIC_DATALOADER, analysis::kStepDataLoader, false},
    {v1::OVERVIEW_METRIC_CPU_EXEC, analysis::kStepCpuExec, false},
    {v1::OVERVIEW_METRIC_OTHER, analysis::kStepOther, false},
}};

v1::OverviewRow& AddRow(v1::Overview& overview, v1::OverviewMetric metric,
                        v1::ValueUnit unit, double a, double b) {
  v1::OverviewRow& row = *overview.add_rows();
  row.set_metric(metric);
  row.set_unit(unit);
  row.set_baseline(a);
  row.set_experimental(b);
  row.set_delta(b - a);
  row.set_delta_pct(DeltaPct(a, b));
  return row;
}

// Marks the sides that lack the row's value; a row missing on a side has no
// delta or noise.
void MarkMissing(v1::OverviewRow& row, bool in_a, bool in_b) {
  if (in_a && in_b) return;
  row.set_baseline_missing(!in_a);
  row.set_experimental_missing(!in_b);
  if (!in_a) row.set_baseline(0);
  if (!in_b) row.set_experimental(0);
  row.set_delta(0);
  row.set_delta_pct(0);
  row.clear_noise();
}

// A row of means over workers of a sum the digests keep, missing on a side
// where `has` says no worker has the value (SEMANTICS: missing is not 0).
void AddMeanRow(v1::Overview& overview, v1::OverviewMetric metric,
                v1::ValueUnit unit, const Side& a, const Side& b,
                double (v1::DigestOverview::*sum)() const,
                bool (v1::DigestOverview::*has)() const) {
  const v1::DigestOverview& oa = a.digest().overview();
  const v1::DigestOverview& ob = b.digest().overview();
  v1::OverviewRow& row =
      AddRow(overview, metric, unit, a.Mean((oa.*sum)()), b.Mean((ob.*sum)()));
  if (has != nullptr) MarkMissing(row, (oa.*has)(), (ob.*has)());
}

}  // namespace

double MeanStepTime(const Side& side) {
  return side.Mean(
      side.digest().overview().step_metrics(analysis::kStepTime).per_step());
}

v1::Overview DiffOverview(const Side& a, const Side& b,
                          const ChangeThreshold& threshold) {
  v1::Overview overview;
  v1::OverviewRow& device = AddRow(overview, v1::OVERVIEW_METRIC_DEVICE,
                                   v1::VALUE_UNIT_UNSPECIFIED, 0, 0);
  device.set_baseline_text(a.digest().overview().device_name());
  device.set_experimental_text(b.digest().overview().device_name());
  using O = v1::DigestOverview;
  AddMeanRow(overview, v1::OVERVIEW_METRIC_DEVICE_MEMORY, v1::VALUE_UNIT_BYTES,
             a, b, &O::device_memory_sum, &O::has_device_memory);
  AddRow(overview, v1::OVERVIEW_METRIC_RANKS, v1::VALUE_UNIT_UNSPECIFIED,
         static_cast<double>(a.workers()), static_cast<double>(b.workers()));
  AddMeanRow(overview, v1::OVERVIEW_METRIC_STEPS, v1::VALUE_UNIT_UNSPECIFIED, a,
             b, &O::steps_sum, nullptr);
  AddMeanRow(overview, v1::OVERVIEW_METRIC_GPU_UTILIZATION,
             v1::VALUE_UNIT_FRACTION, a, b, &O::gpu_utilization_sum,
             &O::has_devices);
  AddMeanRow(overview, v1::OVERVIEW_METRIC_SM_EFFICIENCY,
             v1::VALUE_UNIT_FRACTION, a, b, &O::sm_efficiency_sum,
             &O::has_sm_efficiency);
  AddMeanRow(overview, v1::OVERVIEW_METRIC_ACHIEVED_OCCUPANCY,
             v1::VALUE_UNIT_PERCENT, a, b, &O::occupancy_sum,
             &O::has_occupancy);
  AddMeanRow(overview, v1::OVERVIEW_METRIC_PEAK_MEMORY, v1::VALUE_UNIT_BYTES, a,
             b, &O::peak_memory_sum, &O::has_memory);
  AddMeanRow(overview, v1::OVERVIEW_METRIC_AVERAGE_MEMORY, v1::VALUE_UNIT_BYTES,
             a, b, &O::average_memory_sum, &O::has_memory);

  for (const StepMetric& metric : kStepMetrics) {
    // Always per-step means; the samples are every kept step of every worker.
    const v1::ReducedMetric& ma =
        a.digest().overview().step_metrics(metric.digest);
    const v1::ReducedMetric& mb =
        b.digest().overview().step_metrics(metric.digest);
    v1::OverviewRow& row = AddRow(overview, metric.metric, v1::VALUE_UNIT_US,
                                  a.Mean(ma.per_step()), b.Mean(mb.per_step()));
    *row.mutable_noise() =
        CompareMoments(ma.samples(), mb.samples(), threshold);
    if (metric.device_only) {
      MarkMissing(row, a.digest().overview().has_devices(),
                  b.digest().overview().has_devices());
    }
  }
  return overview;
}

// The rank with the most compute (step time minus communication) is marked
// the slowest compute when it is more than kSlowestComputeMargin over the
// median of the others' compute.
void MarkSlowestCompute(std::vector<v1::RankSteps>::iterator begin,
                        std::vector<v1::RankSteps>::iterator end) {
  if (end - begin < 2) return;
  auto slowest = std::max_element(
      begin, end, [](const v1::RankSteps& x, const v1::RankSteps& y) {
        return x.compute_us() < y.compute_us();
      });
  std::vector<double> others;
  for (auto it = begin; it != end; ++it) {
    if (it != slowest) others.push_back(it->compute_us());
  }
  std::sort(others.begin(), others.end());
  const size_t n = others.size();
  const double median =
      n % 2 == 1 ? others[n / 2] : (others[n / 2 - 1] + others[n / 2]) / 2;
  if (slowest->compute_us() > (1 + kSlowestComputeMargin) * median)
    slowest->set_slowest_compute(true);
}

std::vector<v1::RankSteps> RankStepsOf(const Side& a, const Side& b) {
  std::vector<v1::RankSteps> out;
  for (const auto& [side, run_side] :
       {std::pair{&a, v1::RUN_SIDE_BASELINE},
        std::pair{&b, v1::RUN_SIDE_EXPERIMENTAL}}) {
    const size_t first = out.size();
    for (const v1::DigestRank& w : side->digest().rank_rows()) {
      v1::RankSteps& rank = out.emplace_back();
      rank.set_side(run_side);
      rank.set_rank(w.rank());
      rank.set_worker_name(w.worker_name());
      *rank.mutable_average_step() = w.average_step();
      rank.set_steps(w.steps());
      // Synchronisation evens step times out: the slow rank is the one that
      // waits least.
      rank.set_compute_us(
          std::max(0.0, w.average_step().duration_us() -
                            w.average_step().communication_us()));
    }
    MarkSlowestCompute(out.begin() + static_cast<std::ptrdiff_t>(first),
                       out.end());
  }
  return out;
}

v1::RunSummary SummarizeSide(const Side& side) {
  const v1::RunDigest& digest = side.digest();
  const v1::DigestOverview& o = digest.overview();
  v1::RunSummary summary;
  summary.set_run(digest.run());
  *summary.mutable_ranks() = digest.ranks();
  summary.set_steps_per_rank(side.Mean(o.steps_sum()));
  summary.set_steps_dropped(o.steps_dropped());
  summary.set_device_name(o.device_name());
  summary.set_device_memory_bytes(o.device_memory_bytes());
  summary.set_module_source(o.module_source());
  summary.set_operator_grouping(o.operator_grouping());
  summary.set_kernel_grouping(o.kernel_grouping());
  return summary;
}

}  // namespace profdiff::differ
