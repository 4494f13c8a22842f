#include "differ/table_diff.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include <absl/container/flat_hash_map.h>

#include "analysis/digest_tables.h"
#include "differ/change_class.h"
#include "differ/noise.h"

namespace profdiff::differ {
namespace {

using Metrics = google::protobuf::RepeatedPtrField<v1::ReducedMetric>;

// A row key (name + shapes or launching op) with both sides' rows.
template <typename Row>
struct Entry {
  const Row* rows[2] = {nullptr, nullptr};
  const Metrics* metrics(int side) const {
    return rows[side] != nullptr ? &rows[side]->metrics() : nullptr;
  }
};

// The rows of both tables by key, in first-seen order; `detail` is the key's
// second part.
template <typename Row, typename Detail>
std::vector<Entry<Row>> Entries(
    const google::protobuf::RepeatedPtrField<Row>* a,
    const google::protobuf::RepeatedPtrField<Row>* b, Detail detail) {
  absl::flat_hash_map<std::pair<std::string, std::string>, size_t> index;
  std::vector<Entry<Row>> entries;
  const google::protobuf::RepeatedPtrField<Row>* tables[2] = {a, b};
  for (int side = 0; side < 2; ++side) {
    if (tables[side] == nullptr) continue;
    for (const Row& row : *tables[side]) {
      auto [it, inserted] =
          index.try_emplace(std::pair(row.name(), detail(row)), entries.size());
      if (inserted) entries.emplace_back();
      entries[it->second].rows[side] = &row;
    }
  }
  return entries;
}

v1::OperatorValues OperatorValuesOf(const Side& side, const Metrics* m) {
  v1::OperatorValues out;
  out.set_calls(side.Value(m, analysis::kOperatorCalls));
  out.set_host_self_us(side.Value(m, analysis::kOperatorHostSelf));
  out.set_host_total_us(side.Value(m, analysis::kOperatorHostTotal));
  out.set_device_self_us(side.Value(m, analysis::kOperatorDeviceSelf));
  out.set_device_total_us(side.Value(m, analysis::kOperatorDeviceTotal));
  return out;
}

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
  // docs/semantics.md §7's rule for modules, applied to operators: device time
  // where there is any.
  return a.device_total_us() > 0 || b.device_total_us() > 0
             ? v1::OPERATOR_COMPARED_DEVICE_TOTAL_US
             : v1::OPERATOR_COMPARED_HOST_TOTAL_US;
}

std::vector<v1::OperatorDiff> DiffOperators(const Side& a,
                                            OperatorTables a_table,
                                            const Side& b,
                                            OperatorTables b_table,
                                            const ChangeThreshold& threshold) {
  const auto entries = Entries(
      a_table, b_table,
      [](const v1::DigestOperatorRow& row) { return row.input_shapes(); });
  std::vector<v1::OperatorDiff> out;
  out.reserve(entries.size());
  for (const Entry<v1::DigestOperatorRow>& entry : entries) {
    const v1::DigestOperatorRow& any =
        *(entry.rows[0] != nullptr ? entry.rows[0] : entry.rows[1]);
    v1::OperatorDiff& row = out.emplace_back();
    row.set_name(any.name());
    row.set_input_shapes(any.input_shapes());
    *row.mutable_baseline() = OperatorValuesOf(a, entry.metrics(0));
    *row.mutable_experimental() = OperatorValuesOf(b, entry.metrics(1));
    SetDeltas(row);
    row.set_compared(
        ComparedOperatorColumn(row.baseline(), row.experimental()));
    const bool device = row.compared() == v1::OPERATOR_COMPARED_DEVICE_TOTAL_US;
    const int compared =
        device ? analysis::kOperatorDeviceTotal : analysis::kOperatorHostTotal;
    *row.mutable_noise() =
        CompareMoments(a.Samples(entry.metrics(0), compared),
                       b.Samples(entry.metrics(1), compared), threshold);
    row.set_change(
        ChangeClass(entry.rows[0] != nullptr && row.baseline().calls() > 0,
                    entry.rows[1] != nullptr && row.experimental().calls() > 0,
                    device ? row.baseline().device_total_us()
                           : row.baseline().host_total_us(),
                    device ? row.experimental().device_total_us()
                           : row.experimental().host_total_us(),
                    row.noise(), threshold));
  }
  return out;
}

std::vector<v1::KernelDiff> DiffKernels(const Side& a, KernelTables a_table,
                                        const Side& b, KernelTables b_table,
                                        const ChangeThreshold& threshold) {
  const auto entries =
      Entries(a_table, b_table,
              [](const v1::DigestKernelRow& row) { return row.op_name(); });
  std::vector<v1::KernelDiff> out;
  out.reserve(entries.size());
  const Side* sides[2] = {&a, &b};
  for (const Entry<v1::DigestKernelRow>& entry : entries) {
    v1::KernelValues values[2];
    for (int side = 0; side < 2; ++side) {
      const Metrics* m = entry.metrics(side);
      const double calls = sides[side]->Value(m, analysis::kKernelCalls);
      const double total = sides[side]->Value(m, analysis::kKernelTotal);
      values[side].set_calls(calls);
      values[side].set_total_us(total);
      values[side].set_mean_us(calls > 0 ? total / calls : 0);
      if (entry.rows[side] != nullptr) {
        values[side].set_min_us(entry.rows[side]->min_us());
        values[side].set_max_us(entry.rows[side]->max_us());
      }
    }
    const v1::DigestKernelRow& any =
        *(entry.rows[0] != nullptr ? entry.rows[0] : entry.rows[1]);
    v1::KernelDiff& row = out.emplace_back();
    row.set_name(any.name());
    row.set_op_name(any.op_name());
    *row.mutable_baseline() = values[0];
    *row.mutable_experimental() = values[1];
    SetDeltas(row);
    *row.mutable_noise() = CompareMoments(
        a.Samples(entry.metrics(0), analysis::kKernelTotal),
        b.Samples(entry.metrics(1), analysis::kKernelTotal), threshold);
    row.set_change(ChangeClass(
        entry.rows[0] != nullptr && values[0].calls() > 0,
        entry.rows[1] != nullptr && values[1].calls() > 0, values[0].total_us(),
        values[1].total_us(), row.noise(), threshold));
  }
  return out;
}

}  // namespace profdiff::differ
