#include "analysis/profile_limits.h"

#include <algorithm>
#include <map>

namespace profdiff::analysis {
namespace {

// The samples summed by step index, in step order.
template <typename Sample>
void MergeSamples(const std::map<int32_t, Sample>& by_step, google::protobuf::RepeatedPtrField<Sample>& out) {
  out.Clear();
  for (const auto& [step, sample] : by_step) *out.Add() = sample;
}

}  // namespace

size_t FoldOperatorRows(google::protobuf::RepeatedPtrField<v1::OperatorStats>& rows, size_t max_rows) {
  const size_t size = static_cast<size_t>(rows.size());
  if (size <= max_rows || max_rows == 0) return 0;
  v1::OperatorStats other;
  other.set_name(kOtherName);
  std::map<int32_t, v1::OperatorStepSample> steps;
  for (size_t i = max_rows - 1; i < size; ++i) {
    const v1::OperatorStats& row = rows.Get(static_cast<int>(i));
    other.set_calls(other.calls() + row.calls());
    other.set_host_self_us(other.host_self_us() + row.host_self_us());
    other.set_host_total_us(other.host_total_us() + row.host_total_us());
    other.set_device_self_us(other.device_self_us() + row.device_self_us());
    other.set_device_total_us(other.device_total_us() + row.device_total_us());
    for (const v1::OperatorStepSample& s : row.step_samples()) {
      v1::OperatorStepSample& sum = steps[s.step_index()];
      sum.set_step_index(s.step_index());
      sum.set_calls(sum.calls() + s.calls());
      sum.set_host_self_us(sum.host_self_us() + s.host_self_us());
      sum.set_host_total_us(sum.host_total_us() + s.host_total_us());
      sum.set_device_self_us(sum.device_self_us() + s.device_self_us());
      sum.set_device_total_us(sum.device_total_us() + s.device_total_us());
    }
  }
  MergeSamples(steps, *other.mutable_step_samples());
  rows.DeleteSubrange(static_cast<int>(max_rows - 1), static_cast<int>(size - max_rows + 1));
  *rows.Add() = std::move(other);
  return size - max_rows + 1;
}

size_t FoldKernelRows(google::protobuf::RepeatedPtrField<v1::KernelStats>& rows, size_t max_rows) {
  const size_t size = static_cast<size_t>(rows.size());
  if (size <= max_rows || max_rows == 0) return 0;
  v1::KernelStats other;
  other.set_name(kOtherName);
  std::map<int32_t, v1::KernelStepSample> steps;
  double blocks_weighted = 0;
  double occupancy_weighted = 0;
  for (size_t i = max_rows - 1; i < size; ++i) {
    const v1::KernelStats& row = rows.Get(static_cast<int>(i));
    other.set_min_us(i == max_rows - 1 ? row.min_us() : std::min(other.min_us(), row.min_us()));
    other.set_max_us(std::max(other.max_us(), row.max_us()));
    other.set_calls(other.calls() + row.calls());
    other.set_total_us(other.total_us() + row.total_us());
    blocks_weighted += row.blocks_per_sm() * row.total_us();
    occupancy_weighted += row.achieved_occupancy_pct() * row.total_us();
    for (const v1::KernelStepSample& s : row.step_samples()) {
      v1::KernelStepSample& sum = steps[s.step_index()];
      sum.set_step_index(s.step_index());
      sum.set_calls(sum.calls() + s.calls());
      sum.set_total_us(sum.total_us() + s.total_us());
    }
  }
  if (other.calls() > 0) other.set_mean_us(other.total_us() / other.calls());
  if (other.total_us() > 0) {
    other.set_blocks_per_sm(blocks_weighted / other.total_us());
    other.set_achieved_occupancy_pct(occupancy_weighted / other.total_us());
  }
  MergeSamples(steps, *other.mutable_step_samples());
  rows.DeleteSubrange(static_cast<int>(max_rows - 1), static_cast<int>(size - max_rows + 1));
  *rows.Add() = std::move(other);
  return size - max_rows + 1;
}

}  // namespace profdiff::analysis
