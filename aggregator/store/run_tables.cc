#include "aggregator/store/run_tables.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

namespace profdiff::aggregator {
namespace {

bool InSteps(int32_t step_index, int kept_steps) {
  return step_index >= 0 && step_index < kept_steps;
}

}  // namespace

v1::OperatorValues OperatorContribution(const v1::OperatorStats& row,
                                        int kept_steps, bool per_step) {
  v1::OperatorValues out;
  if (!per_step || kept_steps == 0) {
    out.set_calls(row.calls());
    out.set_host_self_us(row.host_self_us());
    out.set_host_total_us(row.host_total_us());
    out.set_device_self_us(row.device_self_us());
    out.set_device_total_us(row.device_total_us());
    return out;
  }
  for (const v1::OperatorStepSample& step : row.step_samples()) {
    if (!InSteps(step.step_index(), kept_steps)) continue;
    out.set_calls(out.calls() + step.calls());
    out.set_host_self_us(out.host_self_us() + step.host_self_us());
    out.set_host_total_us(out.host_total_us() + step.host_total_us());
    out.set_device_self_us(out.device_self_us() + step.device_self_us());
    out.set_device_total_us(out.device_total_us() + step.device_total_us());
  }
  const double n = kept_steps;
  out.set_calls(out.calls() / n);
  out.set_host_self_us(out.host_self_us() / n);
  out.set_host_total_us(out.host_total_us() / n);
  out.set_device_self_us(out.device_self_us() / n);
  out.set_device_total_us(out.device_total_us() / n);
  return out;
}

v1::KernelValues KernelContribution(const v1::KernelStats& row, int kept_steps,
                                    bool per_step) {
  v1::KernelValues out;
  out.set_min_us(row.min_us());
  out.set_max_us(row.max_us());
  if (!per_step || kept_steps == 0) {
    out.set_calls(row.calls());
    out.set_total_us(row.total_us());
    return out;
  }
  for (const v1::KernelStepSample& step : row.step_samples()) {
    if (!InSteps(step.step_index(), kept_steps)) continue;
    out.set_calls(out.calls() + step.calls());
    out.set_total_us(out.total_us() + step.total_us());
  }
  out.set_calls(out.calls() / kept_steps);
  out.set_total_us(out.total_us() / kept_steps);
  return out;
}

v1::RunTables RunTablesOf(const v1::RunProfile& profile,
                          v1::Normalization normalize) {
  const bool per_step = normalize != v1::NORMALIZATION_TOTAL;
  std::map<std::pair<std::string, std::string>, v1::OperatorValues> operators;
  std::map<std::pair<std::string, std::string>, v1::KernelValues> kernels;
  for (const v1::WorkerProfile& worker : profile.workers()) {
    const int steps = worker.steps_size();
    for (const v1::OperatorStats& row : worker.operators()) {
      const v1::OperatorValues add = OperatorContribution(row, steps, per_step);
      v1::OperatorValues& sum = operators[{row.name(), row.input_shapes()}];
      sum.set_calls(sum.calls() + add.calls());
      sum.set_host_self_us(sum.host_self_us() + add.host_self_us());
      sum.set_host_total_us(sum.host_total_us() + add.host_total_us());
      sum.set_device_self_us(sum.device_self_us() + add.device_self_us());
      sum.set_device_total_us(sum.device_total_us() + add.device_total_us());
    }
    for (const v1::KernelStats& row : worker.kernels()) {
      const v1::KernelValues add = KernelContribution(row, steps, per_step);
      auto [it, first] = kernels.try_emplace({row.name(), row.op_name()});
      v1::KernelValues& sum = it->second;
      sum.set_calls(sum.calls() + add.calls());
      sum.set_total_us(sum.total_us() + add.total_us());
      sum.set_min_us(first ? add.min_us()
                           : std::min(sum.min_us(), add.min_us()));
      sum.set_max_us(first ? add.max_us()
                           : std::max(sum.max_us(), add.max_us()));
    }
  }
  v1::RunTables out;
  out.set_run(profile.run());
  out.set_workers(profile.workers_size());
  for (const v1::WorkerProfile& worker : profile.workers())
    out.add_ranks(worker.worker().rank());
  const double workers = std::max(profile.workers_size(), 1);
  for (auto& [key, sum] : operators) {
    v1::OperatorRunRow& row = *out.add_operators();
    row.set_name(key.first);
    row.set_input_shapes(key.second);
    v1::OperatorValues& values = *row.mutable_values();
    values.set_calls(sum.calls() / workers);
    values.set_host_self_us(sum.host_self_us() / workers);
    values.set_host_total_us(sum.host_total_us() / workers);
    values.set_device_self_us(sum.device_self_us() / workers);
    values.set_device_total_us(sum.device_total_us() / workers);
  }
  for (auto& [key, sum] : kernels) {
    v1::KernelRunRow& row = *out.add_kernels();
    row.set_name(key.first);
    row.set_op_name(key.second);
    v1::KernelValues& values = *row.mutable_values();
    values.set_calls(sum.calls() / workers);
    values.set_total_us(sum.total_us() / workers);
    values.set_mean_us(values.calls() > 0 ? values.total_us() / values.calls()
                                          : 0);
    values.set_min_us(sum.min_us());
    values.set_max_us(sum.max_us());
  }
  return out;
}

}  // namespace profdiff::aggregator
