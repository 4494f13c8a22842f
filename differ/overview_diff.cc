#include "differ/overview_diff.h"

#include <algorithm>
#include <array>
#include <functional>
#include <string>

#include "differ/noise.h"

namespace profdiff::differ {
namespace {

// A step metric: its overview row, how to read it from a StepStats, and
// whether only a GPU run has it (a CPU run has no kernel time, not zero kernel
// time).
struct StepMetric {
  v1::OverviewMetric metric;
  double (v1::StepStats::*get)() const;
  bool device_only;
};

constexpr std::array<StepMetric, 9> kStepMetrics = {{
    {v1::OVERVIEW_METRIC_STEP_TIME, &v1::StepStats::duration_us, false},
    {v1::OVERVIEW_METRIC_KERNEL, &v1::StepStats::kernel_us, true},
    {v1::OVERVIEW_METRIC_MEMCPY, &v1::StepStats::memcpy_us, true},
    {v1::OVERVIEW_METRIC_MEMSET, &v1::StepStats::memset_us, true},
    {v1::OVERVIEW_METRIC_COMMUNICATION, &v1::StepStats::communication_us,
     false},
    {v1::OVERVIEW_METRIC_RUNTIME, &v1::StepStats::runtime_us, true},
    {v1::OVERVIEW_METRIC_DATALOADER, &v1::StepStats::dataloader_us, false},
    {v1::OVERVIEW_METRIC_CPU_EXEC, &v1::StepStats::cpu_exec_us, false},
    {v1::OVERVIEW_METRIC_OTHER, &v1::StepStats::other_us, false},
}};

// The memory entry users look at: the first accelerator's, else the CPU's.
const v1::MemoryStats* MainMemory(const v1::WorkerProfile& w) {
  const v1::MemoryStats* cpu = nullptr;
  for (const v1::MemoryStats& m : w.memory()) {
    if (m.device() == "cpu") {
      cpu = &m;
    } else {
      return &m;
    }
  }
  return cpu;
}

std::string DeviceName(const Side& side) {
  const v1::WorkerProfile& w = *side.workers().front();
  if (w.worker().devices_size() > 0) return w.worker().devices(0).name();
  return w.devices_size() > 0 ? "GPU (no deviceProperties)" : "CPU";
}

v1::OverviewRow& AddRow(v1::Overview& overview, v1::OverviewMetric metric,
                        const char* unit, double a, double b) {
  v1::OverviewRow& row = *overview.add_rows();
  row.set_metric(metric);
  row.set_unit(unit);
  row.set_baseline(a);
  row.set_experimental(b);
  row.set_delta(b - a);
  row.set_delta_pct(DeltaPct(a, b));
  return row;
}

// Whether any worker of the side has the value at all (SEMANTICS: missing is
// not 0).
bool AnyWorker(const Side& side,
               const std::function<bool(const v1::WorkerProfile&)>& has) {
  for (const v1::WorkerProfile* w : side.workers()) {
    if (has(*w)) return true;
  }
  return false;
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

// A GPU run: it ran device work, or its trace lists devices.
bool HasDevices(const v1::WorkerProfile& w) {
  return w.devices_size() > 0 || w.worker().devices_size() > 0;
}
bool HasSmEfficiency(const v1::WorkerProfile& w) {
  for (const v1::DeviceMetrics& d : w.devices()) {
    if (d.has_sm_efficiency()) return true;
  }
  return false;
}
bool HasOccupancy(const v1::WorkerProfile& w) {
  for (const v1::DeviceMetrics& d : w.devices()) {
    if (d.has_occupancy()) return true;
  }
  return false;
}

}  // namespace

v1::Overview DiffOverview(const Side& a, const Side& b,
                          const ChangeThreshold& threshold) {
  v1::Overview overview;
  v1::OverviewRow& device =
      AddRow(overview, v1::OVERVIEW_METRIC_DEVICE, "", 0, 0);
  device.set_baseline_text(DeviceName(a));
  device.set_experimental_text(DeviceName(b));
  auto device_memory = [](const v1::WorkerProfile& w) {
    return w.worker().devices_size() > 0
               ? static_cast<double>(
                     w.worker().devices(0).total_global_mem_bytes())
               : 0.0;
  };
  auto has_device_memory = [&device_memory](const v1::WorkerProfile& w) {
    return device_memory(w) > 0;
  };
  MarkMissing(AddRow(overview, v1::OVERVIEW_METRIC_DEVICE_MEMORY, "bytes",
                     MeanOverWorkers(a, device_memory),
                     MeanOverWorkers(b, device_memory)),
              AnyWorker(a, has_device_memory), AnyWorker(b, has_device_memory));
  auto ranks = [](const Side& s) {
    return static_cast<double>(s.workers().size());
  };
  AddRow(overview, v1::OVERVIEW_METRIC_RANKS, "", ranks(a), ranks(b));
  auto steps = [](const v1::WorkerProfile& w) {
    return static_cast<double>(w.steps_size());
  };
  AddRow(overview, v1::OVERVIEW_METRIC_STEPS, "", MeanOverWorkers(a, steps),
         MeanOverWorkers(b, steps));
  auto utilization = [](const v1::WorkerProfile& w) {
    return w.gpu_utilization();
  };
  MarkMissing(
      AddRow(overview, v1::OVERVIEW_METRIC_GPU_UTILIZATION, "fraction",
             MeanOverWorkers(a, utilization), MeanOverWorkers(b, utilization)),
      AnyWorker(a, HasDevices), AnyWorker(b, HasDevices));
  auto sm = [](const v1::WorkerProfile& w) { return w.sm_efficiency(); };
  MarkMissing(AddRow(overview, v1::OVERVIEW_METRIC_SM_EFFICIENCY, "fraction",
                     MeanOverWorkers(a, sm), MeanOverWorkers(b, sm)),
              AnyWorker(a, HasSmEfficiency), AnyWorker(b, HasSmEfficiency));
  auto occupancy = [](const v1::WorkerProfile& w) {
    return w.achieved_occupancy_pct();
  };
  MarkMissing(
      AddRow(overview, v1::OVERVIEW_METRIC_ACHIEVED_OCCUPANCY, "%",
             MeanOverWorkers(a, occupancy), MeanOverWorkers(b, occupancy)),
      AnyWorker(a, HasOccupancy), AnyWorker(b, HasOccupancy));
  auto peak = [](const v1::WorkerProfile& w) {
    const v1::MemoryStats* m = MainMemory(w);
    return m != nullptr ? static_cast<double>(m->peak_allocated_bytes()) : 0.0;
  };
  auto has_memory = [](const v1::WorkerProfile& w) {
    return MainMemory(w) != nullptr;
  };
  MarkMissing(AddRow(overview, v1::OVERVIEW_METRIC_PEAK_MEMORY, "bytes",
                     MeanOverWorkers(a, peak), MeanOverWorkers(b, peak)),
              AnyWorker(a, has_memory), AnyWorker(b, has_memory));
  auto average = [](const v1::WorkerProfile& w) {
    const v1::MemoryStats* m = MainMemory(w);
    return m != nullptr ? m->average_allocated_bytes() : 0.0;
  };
  MarkMissing(AddRow(overview, v1::OVERVIEW_METRIC_AVERAGE_MEMORY, "bytes",
                     MeanOverWorkers(a, average), MeanOverWorkers(b, average)),
              AnyWorker(a, has_memory), AnyWorker(b, has_memory));

  for (const StepMetric& metric : kStepMetrics) {
    auto mean = [&metric](const v1::WorkerProfile& w) {
      return (w.average_step().*metric.get)();
    };
    auto samples = [&metric](const Side& side) {
      std::vector<double> out;
      for (const v1::WorkerProfile* w : side.workers()) {
        for (const v1::StepStats& step : w->steps())
          out.push_back((step.*metric.get)());
      }
      return out;
    };
    v1::OverviewRow& row =
        AddRow(overview, metric.metric, "us", MeanOverWorkers(a, mean),
               MeanOverWorkers(b, mean));
    *row.mutable_noise() = CompareSamples(samples(a), samples(b), threshold);
    if (metric.device_only)
      MarkMissing(row, AnyWorker(a, HasDevices), AnyWorker(b, HasDevices));
  }
  return overview;
}

// The rank with the most compute (step time minus communication) is the
// straggler when it is more than kStragglerMargin over the median of the
// others' compute.
void MarkStraggler(std::vector<v1::RankSteps>::iterator begin,
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
  if (slowest->compute_us() > (1 + kStragglerMargin) * median)
    slowest->set_straggler(true);
}

std::vector<v1::RankSteps> RankStepsOf(const Side& a, const Side& b) {
  std::vector<v1::RankSteps> out;
  for (const Side* side : {&a, &b}) {
    const size_t first = out.size();
    for (const v1::WorkerProfile* w : side->workers()) {
      v1::RankSteps& rank = out.emplace_back();
      rank.set_side(side->label());
      rank.set_rank(w->worker().rank());
      rank.set_worker_name(w->worker().worker_name());
      *rank.mutable_average_step() = w->average_step();
      rank.set_steps(w->steps_size());
      // Synchronisation evens step times out: the slow rank is the one that
      // waits least.
      rank.set_compute_us(
          std::max(0.0, w->average_step().duration_us() -
                            w->average_step().communication_us()));
    }
    MarkStraggler(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
  }
  return out;
}

v1::RunSummary SummarizeSide(const Side& side) {
  v1::RunSummary summary;
  summary.set_run(side.run().run());
  int32_t dropped = 0;
  double steps = 0;
  for (const v1::WorkerProfile* w : side.workers()) {
    summary.add_ranks(w->worker().rank());
    dropped += w->steps_dropped();
    steps += w->steps_size();
  }
  summary.set_steps_per_rank(steps /
                             static_cast<double>(side.workers().size()));
  summary.set_steps_dropped(dropped);
  summary.set_device_name(DeviceName(side));
  const v1::WorkerProfile& first = *side.workers().front();
  if (first.worker().devices_size() > 0) {
    summary.set_device_memory_bytes(
        first.worker().devices(0).total_global_mem_bytes());
  }
  summary.set_module_source(first.module_source());
  summary.set_operator_grouping(first.operator_grouping());
  summary.set_kernel_grouping(first.kernel_grouping());
  return summary;
}

}  // namespace profdiff::differ
