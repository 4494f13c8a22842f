#include "analysis/digest_tables.h"

#include <algorithm>

#include "analysis/worker_series.h"

namespace profdiff::analysis {
namespace {

// The row of `key` in `out`; a new one is appended, given its key's strings by
// `fill`, and indexed by `key_of` (views of its own strings).
template <typename Index, typename Row, typename Fill, typename KeyOf>
Row& RowOf(const typename Index::key_type& key, Index& index,
           google::protobuf::RepeatedPtrField<Row>& out, Fill fill,
           KeyOf key_of) {
  if (const auto it = index.find(key); it != index.end())
    return out[it->second];
  Row& row = *out.Add();
  fill(row);
  index.emplace(key_of(row), out.size() - 1);
  return row;
}

using PairKey = std::pair<std::string_view, std::string_view>;
using TripleKey =
    std::tuple<std::string_view, std::string_view, std::string_view>;

// A memory row's key: (detail, name, device).
TripleKey MemoryKeyOf(const v1::DigestMemoryRow& row) {
  return {row.detail(), row.name(), row.device()};
}

WorkerSeries MemorySeries(
    const google::protobuf::RepeatedPtrField<v1::MemoryStepSample>& steps,
    int kept_steps, std::initializer_list<double> totals) {
  WorkerSeries series(kMemoryMetrics, kept_steps);
  series.AddTotal(totals);
  for (const v1::MemoryStepSample& s : steps) {
    series.AddStep(s.step_index(),
                   {static_cast<double>(s.allocation_count()),
                    static_cast<double>(s.allocation_bytes()),
                    static_cast<double>(s.self_increase_bytes()),
                    static_cast<double>(s.total_allocation_bytes()),
                    static_cast<double>(s.increase_bytes())});
  }
  return series;
}

}  // namespace

void AddOperatorRows(
    const google::protobuf::RepeatedPtrField<v1::OperatorStats>& rows,
    int kept_steps, RowIndex& index,
    google::protobuf::RepeatedPtrField<v1::DigestOperatorRow>& out) {
  for (const v1::OperatorStats& row : rows) {
    v1::DigestOperatorRow& digest = RowOf(
        PairKey(row.name(), row.input_shapes()), index, out,
        [&](v1::DigestOperatorRow& r) {
          r.set_name(row.name());
          r.set_input_shapes(row.input_shapes());
        },
        [](const v1::DigestOperatorRow& r) {
          return PairKey(r.name(), r.input_shapes());
        });
    WorkerSeries series(kOperatorMetrics, kept_steps);
    series.AddTotal({static_cast<double>(row.calls()), row.host_self_us(),
                     row.host_total_us(), row.device_self_us(),
                     row.device_total_us()});
    for (const v1::OperatorStepSample& s : row.step_samples()) {
      series.AddStep(s.step_index(), {static_cast<double>(s.calls()),
                                      s.host_self_us(), s.host_total_us(),
                                      s.device_self_us(), s.device_total_us()});
    }
    series.FoldInto(*digest.mutable_metrics());
  }
}

void AddKernelRows(
    const google::protobuf::RepeatedPtrField<v1::KernelStats>& rows,
    int kept_steps, RowIndex& index,
    google::protobuf::RepeatedPtrField<v1::DigestKernelRow>& out) {
  for (const v1::KernelStats& row : rows) {
    bool fresh = false;
    v1::DigestKernelRow& digest = RowOf(
        PairKey(row.name(), row.op_name()), index, out,
        [&](v1::DigestKernelRow& r) {
          fresh = true;
          r.set_name(row.name());
          r.set_op_name(row.op_name());
        },
        [](const v1::DigestKernelRow& r) {
          return PairKey(r.name(), r.op_name());
        });
    if (fresh) {
      digest.set_min_us(row.min_us());
      digest.set_max_us(std::max(0.0, row.max_us()));
    } else {
      digest.set_min_us(std::min(digest.min_us(), row.min_us()));
      digest.set_max_us(std::max(digest.max_us(), row.max_us()));
    }
    WorkerSeries series(kKernelMetrics, kept_steps);
    series.AddTotal({static_cast<double>(row.calls()), row.total_us()});
    for (const v1::KernelStepSample& s : row.step_samples()) {
      series.AddStep(s.step_index(),
                     {static_cast<double>(s.calls()), s.total_us()});
    }
    series.FoldInto(*digest.mutable_metrics());
  }
}

void AddOperatorMemoryRows(
    const google::protobuf::RepeatedPtrField<v1::OperatorMemory>& rows,
    int kept_steps, MemoryRowIndex& index,
    google::protobuf::RepeatedPtrField<v1::DigestMemoryRow>& out) {
  const double steps = std::max(kept_steps, 1);
  for (const v1::OperatorMemory& row : rows) {
    v1::DigestMemoryRow& digest = RowOf(
        TripleKey(row.input_shapes(), row.name(), row.device()), index, out,
        [&](v1::DigestMemoryRow& r) {
          r.set_name(row.name());
          r.set_detail(row.input_shapes());
          r.set_device(row.device());
        },
        MemoryKeyOf);
    MemorySeries(row.step_samples(), kept_steps,
                 {static_cast<double>(row.self_allocation_count()),
                  static_cast<double>(row.self_allocation_bytes()),
                  static_cast<double>(row.self_increase_bytes()),
                  static_cast<double>(row.allocation_bytes()),
                  static_cast<double>(row.increase_bytes())})
        .FoldInto(*digest.mutable_metrics());
    digest.set_calls_per_step(digest.calls_per_step() + row.calls() / steps);
    digest.set_calls_total(digest.calls_total() + row.calls());
  }
}

void AddModuleMemoryRows(
    const google::protobuf::RepeatedPtrField<v1::ModuleMemory>& rows,
    int kept_steps, MemoryRowIndex& index,
    google::protobuf::RepeatedPtrField<v1::DigestMemoryRow>& out) {
  for (const v1::ModuleMemory& row : rows) {
    v1::DigestMemoryRow& digest = RowOf(
        TripleKey(row.path(), row.name(), row.device()), index, out,
        [&](v1::DigestMemoryRow& r) {
          r.set_name(row.name());
          r.set_detail(row.path());
          r.set_device(row.device());
        },
        MemoryKeyOf);
    digest.set_kind(row.kind());
    // A module's own increase is everything inside it.
    MemorySeries(row.step_samples(), kept_steps,
                 {static_cast<double>(row.allocation_count()),
                  static_cast<double>(row.allocation_bytes()),
                  static_cast<double>(row.increase_bytes()),
                  static_cast<double>(row.allocation_bytes()),
                  static_cast<double>(row.increase_bytes())})
        .FoldInto(*digest.mutable_metrics());
    digest.set_peak_allocated_bytes(
        std::max(digest.peak_allocated_bytes(),
                 static_cast<double>(row.peak_allocated_bytes())));
  }
}

}  // namespace profdiff::analysis
