#include "differ/table_diff.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include <absl/container/flat_hash_map.h>

#include "differ/change_class.h"
#include "differ/noise.h"

namespace profdiff::differ {
namespace {

// A row key (name + shapes or launching op) with both sides' series.
template <size_t M>
struct Entry {
  Entry(std::string name, std::string detail, const Side& a, const Side& b)
      : name(std::move(name)),
        detail(std::move(detail)),
        series{RowSeries<M>(a), RowSeries<M>(b)} {}
  std::string name;
  std::string detail;
  RowSeries<M> series[2];  // baseline, experimental
  double min_us[2] = {std::numeric_limits<double>::infinity(),
                      std::numeric_limits<double>::infinity()};
  double max_us[2] = {0, 0};
};

// Rows of both sides by key, in first-seen order.
template <size_t M>
class EntryTable {
 public:
  EntryTable(const Side& a, const Side& b) : a_(a), b_(b) {}
  Entry<M>& Get(const std::string& name, const std::string& detail) {
    auto [it, inserted] =
        index_.try_emplace(std::pair(name, detail), entries_.size());
    if (inserted) entries_.emplace_back(name, detail, a_, b_);
    return entries_[it->second];
  }
  std::vector<Entry<M>>& entries() { return entries_; }

 private:
  const Side& a_;
  const Side& b_;
  absl::flat_hash_map<std::pair<std::string, std::string>, size_t> index_;
  std::vector<Entry<M>> entries_;
};

enum OperatorMetric {
  kCalls,
  kHostSelf,
  kHostTotal,
  kDeviceSelf,
  kDeviceTotal,
  kOperatorMetrics
};

template <typename Stats>
std::array<double, kOperatorMetrics> OperatorMetrics(const Stats& s) {
  return {static_cast<double>(s.calls()), s.host_self_us(), s.host_total_us(),
          s.device_self_us(), s.device_total_us()};
}

v1::OperatorValues ToOperatorValues(
    const std::array<double, kOperatorMetrics>& v) {
  v1::OperatorValues out;
  out.set_calls(v[kCalls]);
  out.set_host_self_us(v[kHostSelf]);
  out.set_host_total_us(v[kHostTotal]);
  out.set_device_self_us(v[kDeviceSelf]);
  out.set_device_total_us(v[kDeviceTotal]);
  return out;
}

enum KernelMetric { kKernelCalls, kKernelTotal, kKernelMetrics };

}  // namespace

namespace {

// Fills a row's delta (experimental - baseline) and delta_pct; `each_column(d,
// x, y, f)` sets every column of d to f(x's, y's).
template <typename Row, typename EachColumn>
void SetDeltasOf(Row& row, EachColumn each_column) {
  for (const bool pct : {false, true}) {
    const auto f = [pct](double p, double q) {
      return pct ? DeltaPct(p, q) : q - p;
    };
    each_column(pct ? *row.mutable_delta_pct() : *row.mutable_delta(),
                row.baseline(), row.experimental(), f);
  }
}

}  // namespace

void SetDeltas(v1::OperatorDiff& row) {
  SetDeltasOf(row, [](v1::OperatorValues& d, const v1::OperatorValues& x,
                      const v1::OperatorValues& y, auto f) {
    d.set_calls(f(x.calls(), y.calls()));
    d.set_host_self_us(f(x.host_self_us(), y.host_self_us()));
    d.set_host_total_us(f(x.host_total_us(), y.host_total_us()));
    d.set_device_self_us(f(x.device_self_us(), y.device_self_us()));
    d.set_device_total_us(f(x.device_total_us(), y.device_total_us()));
  });
}

void SetDeltas(v1::KernelDiff& row) {
  SetDeltasOf(row, [](v1::KernelValues& d, const v1::KernelValues& x,
                      const v1::KernelValues& y, auto f) {
    d.set_calls(f(x.calls(), y.calls()));
    d.set_total_us(f(x.total_us(), y.total_us()));
    d.set_mean_us(f(x.mean_us(), y.mean_us()));
    d.set_min_us(f(x.min_us(), y.min_us()));
    d.set_max_us(f(x.max_us(), y.max_us()));
  });
}

void SetDeltas(v1::MemoryRowDiff& row) {
  SetDeltasOf(row, [](v1::MemoryValues& d, const v1::MemoryValues& x,
                      const v1::MemoryValues& y, auto f) {
    d.set_calls(f(x.calls(), y.calls()));
    d.set_allocation_count(f(x.allocation_count(), y.allocation_count()));
    d.set_allocation_bytes(f(x.allocation_bytes(), y.allocation_bytes()));
    d.set_self_increase_bytes(
        f(x.self_increase_bytes(), y.self_increase_bytes()));
    d.set_total_allocation_bytes(
        f(x.total_allocation_bytes(), y.total_allocation_bytes()));
    d.set_increase_bytes(f(x.increase_bytes(), y.increase_bytes()));
    d.set_peak_allocated_bytes(
        f(x.peak_allocated_bytes(), y.peak_allocated_bytes()));
  });
}

v1::OperatorCompared ComparedOperatorColumn(const v1::OperatorValues& a,
                                            const v1::OperatorValues& b) {
  // SEMANTICS.md §7's rule for modules, applied to operators: device time where
  // there is any.
  return a.device_total_us() > 0 || b.device_total_us() > 0
             ? v1::OPERATOR_COMPARED_DEVICE_TOTAL_US
             : v1::OPERATOR_COMPARED_HOST_TOTAL_US;
}

std::vector<v1::OperatorDiff> DiffOperators(const Side& a,
                                            const OperatorTables& a_tables,
                                            const Side& b,
                                            const OperatorTables& b_tables,
                                            const ChangeThreshold& threshold) {
  EntryTable<kOperatorMetrics> table(a, b);
  const Side* sides[2] = {&a, &b};
  const OperatorTables* tables[2] = {&a_tables, &b_tables};
  for (int side = 0; side < 2; ++side) {
    for (size_t w = 0; w < tables[side]->size(); ++w) {
      if ((*tables[side])[w] == nullptr) continue;
      for (const v1::OperatorStats& row : *(*tables[side])[w]) {
        RowSeries<kOperatorMetrics>& series =
            table.Get(row.name(), row.input_shapes()).series[side];
        series.AddTotal(*sides[side], w, OperatorMetrics(row));
        for (const v1::OperatorStepSample& step : row.step_samples()) {
          series.AddStep(*sides[side], w, step.step_index(),
                         OperatorMetrics(step));
        }
      }
    }
  }
  std::vector<v1::OperatorDiff> out;
  out.reserve(table.entries().size());
  for (Entry<kOperatorMetrics>& entry : table.entries()) {
    std::array<double, kOperatorMetrics> va{}, vb{};
    for (size_t m = 0; m < kOperatorMetrics; ++m) {
      va[m] = entry.series[0].Value(a, m);
      vb[m] = entry.series[1].Value(b, m);
    }
    v1::OperatorDiff& row = out.emplace_back();
    row.set_name(entry.name);
    row.set_input_shapes(entry.detail);
    *row.mutable_baseline() = ToOperatorValues(va);
    *row.mutable_experimental() = ToOperatorValues(vb);
    SetDeltas(row);
    row.set_compared(
        ComparedOperatorColumn(row.baseline(), row.experimental()));
    const size_t compared =
        row.compared() == v1::OPERATOR_COMPARED_DEVICE_TOTAL_US ? kDeviceTotal
                                                                : kHostTotal;
    *row.mutable_noise() =
        CompareSamples(entry.series[0].Samples(compared),
                       entry.series[1].Samples(compared), threshold);
    row.set_change(ChangeClass(entry.series[0].present && va[kCalls] > 0,
                               entry.series[1].present && vb[kCalls] > 0,
                               va[compared], vb[compared], row.noise(),
                               threshold));
  }
  return out;
}

std::vector<v1::KernelDiff> DiffKernels(const Side& a,
                                        const KernelTables& a_tables,
                                        const Side& b,
                                        const KernelTables& b_tables,
                                        const ChangeThreshold& threshold) {
  EntryTable<kKernelMetrics> table(a, b);
  const Side* sides[2] = {&a, &b};
  const KernelTables* tables[2] = {&a_tables, &b_tables};
  for (int side = 0; side < 2; ++side) {
    for (size_t w = 0; w < tables[side]->size(); ++w) {
      if ((*tables[side])[w] == nullptr) continue;
      for (const v1::KernelStats& row : *(*tables[side])[w]) {
        Entry<kKernelMetrics>& entry = table.Get(row.name(), row.op_name());
        RowSeries<kKernelMetrics>& series = entry.series[side];
        series.AddTotal(*sides[side], w,
                        {static_cast<double>(row.calls()), row.total_us()});
        for (const v1::KernelStepSample& step : row.step_samples()) {
          series.AddStep(*sides[side], w, step.step_index(),
                         {static_cast<double>(step.calls()), step.total_us()});
        }
        entry.min_us[side] = std::min(entry.min_us[side], row.min_us());
        entry.max_us[side] = std::max(entry.max_us[side], row.max_us());
      }
    }
  }
  std::vector<v1::KernelDiff> out;
  out.reserve(table.entries().size());
  for (Entry<kKernelMetrics>& entry : table.entries()) {
    v1::KernelValues values[2];
    const Side* side_of[2] = {&a, &b};
    for (int side = 0; side < 2; ++side) {
      const double calls =
          entry.series[side].Value(*side_of[side], kKernelCalls);
      const double total =
          entry.series[side].Value(*side_of[side], kKernelTotal);
      values[side].set_calls(calls);
      values[side].set_total_us(total);
      values[side].set_mean_us(calls > 0 ? total / calls : 0);
      values[side].set_min_us(entry.series[side].present ? entry.min_us[side]
                                                         : 0);
      values[side].set_max_us(entry.max_us[side]);
    }
    v1::KernelDiff& row = out.emplace_back();
    row.set_name(entry.name);
    row.set_op_name(entry.detail);
    *row.mutable_baseline() = values[0];
    *row.mutable_experimental() = values[1];
    SetDeltas(row);
    *row.mutable_noise() =
        CompareSamples(entry.series[0].Samples(kKernelTotal),
                       entry.series[1].Samples(kKernelTotal), threshold);
    row.set_change(ChangeClass(entry.series[0].present && values[0].calls() > 0,
                               entry.series[1].present && values[1].calls() > 0,
                               values[0].total_us(), values[1].total_us(),
                               row.noise(), threshold));
  }
  return out;
}

}  // namespace profdiff::differ
