#include "analysis/profile_limits.h"

#include <algorithm>
#include <map>

namespace profdiff::analysis {
namespace {

// Keeps rows [0, max_rows - 1) and replaces the rest with one "(other)" row:
// `add(other, row)` sums a row into it, `add_sample(sum, sample)` a step sample
// into the sum of its step. Returns how many rows were folded.
template <typename Row, typename Sample, typename Add, typename AddSample>
size_t FoldTail(google::protobuf::RepeatedPtrField<Row>& rows, size_t max_rows,
                Add add, AddSample add_sample) {
  const size_t size = static_cast<size_t>(rows.size());
  if (size <= max_rows || max_rows == 0) return 0;
  Row other;
  other.set_name(kOtherName);
  std::map<int32_t, Sample> steps;
  for (size_t i = max_rows - 1; i < size; ++i) {
    const Row& row = rows.Get(static_cast<int>(i));
    add(other, row, i == max_rows - 1);
    for (const Sample& sample : row.step_samples()) {
      Sample& sum = steps[sample.step_index()];
      sum.set_step_index(sample.step_index());
      sum.set_calls(sum.calls() + sample.calls());
      add_sample(sum, sample);
    }
  }
  for (auto& [step, sample] : steps)
    *other.add_step_samples() = std::move(sample);
  rows.DeleteSubrange(static_cast<int>(max_rows - 1),
                      static_cast<int>(size - max_rows + 1));
  *rows.Add() = std::move(other);
  return size - max_rows + 1;
}

}  // namespace

size_t FoldOperatorRows(
    google::protobuf::RepeatedPtrField<v1::OperatorStats>& rows,
    size_t max_rows) {
  return FoldTail<v1::OperatorStats, v1::OperatorStepSample>(
      rows, max_rows,
      [](v1::OperatorStats& sum, const v1::OperatorStats& row, bool /*first*/) {
        sum.set_calls(sum.calls() + row.calls());
        sum.set_host_self_us(sum.host_self_us() + row.host_self_us());
        sum.set_host_total_us(sum.host_total_us() + row.host_total_us());
        sum.set_device_self_us(sum.device_self_us() + row.device_self_us());
        sum.set_device_total_us(sum.device_total_us() + row.device_total_us());
      },
      [](v1::OperatorStepSample& sum, const v1::OperatorStepSample& s) {
        sum.set_host_self_us(sum.host_self_us() + s.host_self_us());
        sum.set_host_total_us(sum.host_total_us() + s.host_total_us());
        sum.set_device_self_us(sum.device_self_us() + s.device_self_us());
        sum.set_device_total_us(sum.device_total_us() + s.device_total_us());
      });
}

size_t FoldKernelRows(google::protobuf::RepeatedPtrField<v1::KernelStats>& rows,
                      size_t max_rows) {
  // blocks_per_sm and occupancy are duration-weighted means: carried as
  // weighted sums, then divided.
  const size_t folded = FoldTail<v1::KernelStats, v1::KernelStepSample>(
      rows, max_rows,
      [](v1::KernelStats& sum, const v1::KernelStats& row, bool first) {
        sum.set_min_us(first ? row.min_us()
                             : std::min(sum.min_us(), row.min_us()));
        sum.set_max_us(std::max(sum.max_us(), row.max_us()));
        sum.set_calls(sum.calls() + row.calls());
        sum.set_total_us(sum.total_us() + row.total_us());
        sum.set_blocks_per_sm(sum.blocks_per_sm() +
                              row.blocks_per_sm() * row.total_us());
        sum.set_achieved_occupancy_pct(sum.achieved_occupancy_pct() +
                                       row.achieved_occupancy_pct() *
                                           row.total_us());
        // Missing when every folded row misses it.
        sum.set_blocks_per_sm_missing(row.blocks_per_sm_missing() &&
                                      (first || sum.blocks_per_sm_missing()));
        sum.set_occupancy_missing(row.occupancy_missing() &&
                                  (first || sum.occupancy_missing()));
      },
      [](v1::KernelStepSample& sum, const v1::KernelStepSample& s) {
        sum.set_total_us(sum.total_us() + s.total_us());
      });
  if (folded == 0) return 0;
  v1::KernelStats& other = *rows.Mutable(rows.size() - 1);
  if (other.calls() > 0) other.set_mean_us(other.total_us() / other.calls());
  const double total = other.total_us();
  other.set_blocks_per_sm(total > 0 ? other.blocks_per_sm() / total : 0);
  other.set_achieved_occupancy_pct(
      total > 0 ? other.achieved_occupancy_pct() / total : 0);
  return folded;
}

}  // namespace profdiff::analysis
