#include "differ/memory_diff.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "differ/change_class.h"
#include "differ/table_diff.h"

namespace profdiff::differ {
namespace {

enum MemoryMetric {
  kCount,
  kBytes,
  kSelfIncrease,
  kTotalBytes,
  kIncrease,
  kMemoryMetrics
};
using Values = std::array<double, kMemoryMetrics>;

Values StepValues(const v1::MemoryStepSample& s) {
  return {static_cast<double>(s.allocation_count()),
          static_cast<double>(s.allocation_bytes()),
          static_cast<double>(s.self_increase_bytes()),
          static_cast<double>(s.total_allocation_bytes()),
          static_cast<double>(s.increase_bytes())};
}

// One row key with both sides' series, calls and module peaks.
struct MemoryEntry {
  MemoryEntry(const Side& a, const Side& b)
      : series{RowSeries<kMemoryMetrics>(a), RowSeries<kMemoryMetrics>(b)} {}
  std::string name;
  std::string detail;
  std::string device;
  v1::ModuleNodeKind kind = v1::MODULE_NODE_KIND_UNSPECIFIED;
  RowSeries<kMemoryMetrics> series[2];
  double calls[2] = {0, 0};  // Σ over workers of calls per step
  double peak[2] = {0, 0};   // max over workers
};

class MemoryEntries {
 public:
  MemoryEntries(const Side& a, const Side& b) : a_(a), b_(b) {}
  MemoryEntry& Get(const std::string& name, const std::string& detail,
                   const std::string& device) {
    auto [it, inserted] =
        index_.try_emplace(std::tuple(detail, name, device), entries_.size());
    if (inserted) {
      MemoryEntry& entry = entries_.emplace_back(a_, b_);
      entry.name = name;
      entry.detail = detail;
      entry.device = device;
    }
    return entries_[it->second];
  }
  std::vector<MemoryEntry>& entries() { return entries_; }

 private:
  const Side& a_;
  const Side& b_;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> index_;
  std::vector<MemoryEntry> entries_;
};

void SetValues(const Values& v, double calls, double peak,
               v1::MemoryValues& out) {
  out.set_calls(calls);
  out.set_allocation_count(v[kCount]);
  out.set_allocation_bytes(v[kBytes]);
  out.set_self_increase_bytes(v[kSelfIncrease]);
  out.set_total_allocation_bytes(v[kTotalBytes]);
  out.set_increase_bytes(v[kIncrease]);
  out.set_peak_allocated_bytes(peak);
}

std::vector<v1::MemoryRowDiff> Rows(MemoryEntries& table, const Side* sides[2],
                                    const ChangeThreshold& threshold) {
  // Bytes are not microseconds: only the relative threshold applies.
  const ChangeThreshold bytes_threshold{threshold.min_pct, 0};
  std::vector<v1::MemoryRowDiff> out;
  for (MemoryEntry& entry : table.entries()) {
    Values values[2];
    for (int s = 0; s < 2; ++s) {
      for (size_t m = 0; m < kMemoryMetrics; ++m)
        values[s][m] = entry.series[s].Value(*sides[s], m);
    }
    v1::MemoryRowDiff& row = out.emplace_back();
    row.set_name(entry.name);
    row.set_detail(entry.detail);
    row.set_device(entry.device);
    row.set_kind(entry.kind);
    const double workers[2] = {
        static_cast<double>(std::max<size_t>(sides[0]->workers().size(), 1)),
        static_cast<double>(std::max<size_t>(sides[1]->workers().size(), 1))};
    SetValues(values[0], entry.calls[0] / workers[0], entry.peak[0],
              *row.mutable_baseline());
    SetValues(values[1], entry.calls[1] / workers[1], entry.peak[1],
              *row.mutable_experimental());
    SetDeltas(row);
    *row.mutable_allocation_noise() =
        CompareSamples(entry.series[0].Samples(kBytes),
                       entry.series[1].Samples(kBytes), bytes_threshold);
    *row.mutable_increase_noise() =
        CompareSamples(entry.series[0].Samples(kSelfIncrease),
                       entry.series[1].Samples(kSelfIncrease), bytes_threshold);
    const bool by_bytes = values[0][kBytes] != 0 || values[1][kBytes] != 0;
    const size_t compared = by_bytes ? kBytes : kSelfIncrease;
    row.set_change(
        ChangeClass(entry.series[0].present, entry.series[1].present,
                    values[0][compared], values[1][compared],
                    by_bytes ? row.allocation_noise() : row.increase_noise(),
                    bytes_threshold));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const v1::MemoryRowDiff& x, const v1::MemoryRowDiff& y) {
                     const double bx = std::abs(x.delta().allocation_bytes());
                     const double by = std::abs(y.delta().allocation_bytes());
                     if (bx != by) return bx > by;
                     return std::abs(x.delta().self_increase_bytes()) >
                            std::abs(y.delta().self_increase_bytes());
                   });
  return out;
}

v1::MemorySource SourceOf(const Side& side) {
  v1::MemorySource best = v1::MEMORY_SOURCE_NONE;
  for (const v1::WorkerProfile* w : side.workers()) {
    if (w->memory_source() == v1::MEMORY_SOURCE_EVENTS)
      return w->memory_source();
    if (w->memory_source() != v1::MEMORY_SOURCE_NONE) best = w->memory_source();
  }
  return best;
}

void FillPlaceAndCurve(const v1::WorkerProfile& w, const v1::MemoryStats& m,
                       v1::MemoryPeakPlace& place, v1::MemoryCurve& curve) {
  place.set_rank(w.worker().rank());
  place.set_step_index(m.peak_step_index());
  place.set_offset_ns(m.peak_offset_ns());
  place.set_operator_name(m.peak_operator());
  place.set_module_path(m.peak_module());
  *place.mutable_holders() = m.peak_holders();
  curve.set_rank(w.worker().rank());
  *curve.mutable_points() = m.curve();
  if (w.steps().empty()) return;
  const double origin_us = w.steps(0).start_us();
  for (const v1::StepStats& step : w.steps()) {
    curve.add_step_offsets_ns(
        std::llround((step.start_us() - origin_us) * 1000));
    curve.add_step_end_offsets_ns(std::llround(
        (step.start_us() + step.duration_us() - origin_us) * 1000));
  }
  const v1::StepStats& last = w.steps(w.steps_size() - 1);
  curve.add_step_offsets_ns(
      std::llround((last.start_us() + last.duration_us() - origin_us) * 1000));
}

void DiffDevices(const Side* sides[2], v1::MemoryDiff& out) {
  std::map<std::string, v1::DeviceMemoryDiff> devices;
  for (int s = 0; s < 2; ++s) {
    std::map<std::string, std::array<double, 4>>
        sums;  // peak, average, reserved, workers
    for (const v1::WorkerProfile* w : sides[s]->workers()) {
      for (const v1::MemoryStats& m : w->memory()) {
        v1::DeviceMemoryDiff& d = devices[m.device()];
        d.set_device(m.device());
        d.set_allocated_from_bytes(d.allocated_from_bytes() ||
                                   m.allocated_from_bytes());
        std::array<double, 4>& sum = sums[m.device()];
        if (sum[3] == 0) {
          FillPlaceAndCurve(*w, m,
                            s == 0 ? *d.mutable_baseline_peak()
                                   : *d.mutable_experimental_peak(),
                            s == 0 ? *d.mutable_baseline_curve()
                                   : *d.mutable_experimental_curve());
        }
        sum[0] += static_cast<double>(m.peak_allocated_bytes());
        sum[1] += m.average_allocated_bytes();
        sum[2] += static_cast<double>(m.peak_reserved_bytes());
        sum[3] += 1;
      }
    }
    for (const auto& [name, sum] : sums) {
      v1::DeviceMemoryDiff& d = devices[name];
      if (s == 0) {
        d.set_baseline_peak_bytes(sum[0] / sum[3]);
        d.set_baseline_average_bytes(sum[1] / sum[3]);
        d.set_baseline_peak_reserved_bytes(sum[2] / sum[3]);
      } else {
        d.set_experimental_peak_bytes(sum[0] / sum[3]);
        d.set_experimental_average_bytes(sum[1] / sum[3]);
        d.set_experimental_peak_reserved_bytes(sum[2] / sum[3]);
      }
    }
  }
  for (auto& [name, d] : devices) *out.add_devices() = std::move(d);
}

}  // namespace

v1::MemoryDiff DiffMemory(const Side& a, const Side& b,
                          const ChangeThreshold& threshold) {
  v1::MemoryDiff out;
  const Side* sides[2] = {&a, &b};
  out.set_baseline_source(SourceOf(a));
  out.set_experimental_source(SourceOf(b));
  DiffDevices(sides, out);

  MemoryEntries operators(a, b);
  MemoryEntries modules(a, b);
  for (int s = 0; s < 2; ++s) {
    const Side& side = *sides[s];
    for (size_t w = 0; w < side.workers().size(); ++w) {
      const v1::WorkerProfile& worker = *side.workers()[w];
      const double steps =
          static_cast<double>(std::max<size_t>(side.steps(w), 1));
      for (const v1::OperatorMemory& row : worker.operator_memory()) {
        MemoryEntry& entry =
            operators.Get(row.name(), row.input_shapes(), row.device());
        entry.series[s].AddTotal(
            side, w,
            {static_cast<double>(row.self_allocation_count()),
             static_cast<double>(row.self_allocation_bytes()),
             static_cast<double>(row.self_increase_bytes()),
             static_cast<double>(row.allocation_bytes()),
             static_cast<double>(row.increase_bytes())});
        for (const v1::MemoryStepSample& step : row.step_samples())
          entry.series[s].AddStep(side, w, step.step_index(), StepValues(step));
        entry.calls[s] += side.per_step() ? row.calls() / steps : row.calls();
      }
      for (const v1::ModuleMemory& row : worker.module_memory()) {
        MemoryEntry& entry = modules.Get(row.name(), row.path(), row.device());
        entry.kind = row.kind();
        entry.series[s].AddTotal(side, w,
                                 {static_cast<double>(row.allocation_count()),
                                  static_cast<double>(row.allocation_bytes()),
                                  static_cast<double>(row.increase_bytes()),
                                  static_cast<double>(row.allocation_bytes()),
                                  static_cast<double>(row.increase_bytes())});
        for (const v1::MemoryStepSample& step : row.step_samples())
          entry.series[s].AddStep(side, w, step.step_index(), StepValues(step));
        entry.peak[s] = std::max(
            entry.peak[s], static_cast<double>(row.peak_allocated_bytes()));
      }
    }
  }
  for (v1::MemoryRowDiff& row : Rows(operators, sides, threshold))
    *out.add_operators() = std::move(row);
  for (v1::MemoryRowDiff& row : Rows(modules, sides, threshold))
    *out.add_modules() = std::move(row);
  return out;
}

}  // namespace profdiff::differ
