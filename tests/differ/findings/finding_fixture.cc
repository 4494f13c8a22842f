#include "tests/differ/findings/finding_fixture.h"

#include <gtest/gtest.h>

#include "differ/differ.h"

namespace profdiff::differ::testing {

double Scale(int step) { return 1 + kJitter * (step - (kSteps - 1) / 2.0); }

Node Backward(std::string name, double host_us, std::vector<Node> children) {
  Node n{std::move(name), host_us, std::move(children)};
  n.kind = v1::MODULE_NODE_KIND_BACKWARD;
  return n;
}

namespace {

void FillOperator(const Op& op, v1::OperatorStats& out) {
  const double total = op.total_us < 0 ? op.self_us : op.total_us;
  out.set_name(op.name);
  out.set_calls(static_cast<int32_t>(op.calls * kSteps));
  out.set_host_self_us(op.self_us * kSteps);
  out.set_host_total_us(total * kSteps);
  out.set_device_self_us(op.device_self_us * kSteps);
  out.set_device_total_us(op.device_self_us * kSteps);
  for (int s = 0; s < kSteps; ++s) {
    v1::OperatorStepSample& sample = *out.add_step_samples();
    sample.set_step_index(s);
    sample.set_calls(static_cast<int32_t>(op.calls));
    sample.set_host_self_us(op.self_us * Scale(s));
    sample.set_host_total_us(total * Scale(s));
    sample.set_device_self_us(op.device_self_us * Scale(s));
    sample.set_device_total_us(op.device_self_us * Scale(s));
  }
}

void FillKernel(const Kernel& kernel, v1::KernelStats& out) {
  out.set_name(kernel.name);
  out.set_op_name(kernel.op);
  out.set_calls(static_cast<int32_t>(kernel.calls * kSteps));
  out.set_total_us(kernel.us * kSteps);
  out.set_mean_us(kernel.us / kernel.calls);
  out.set_max_us(kernel.us / kernel.calls);
  out.set_min_us(kernel.us / kernel.calls);
  for (int s = 0; s < kSteps; ++s) {
    v1::KernelStepSample& sample = *out.add_step_samples();
    sample.set_step_index(s);
    sample.set_calls(static_cast<int32_t>(kernel.calls));
    sample.set_total_us(kernel.us * Scale(s));
  }
}

void FillNode(const Node& spec, const std::string& parent_path,
              v1::ModuleNode& out) {
  out.set_name(spec.name);
  out.set_path(parent_path.empty() ? spec.name : parent_path + "/" + spec.name);
  out.set_kind(spec.kind);
  out.set_calls(kSteps);
  out.set_host_us(spec.host_us * kSteps);
  out.set_device_us(spec.device_us * kSteps);
  out.set_compare_us((spec.device_us > 0 ? spec.device_us : spec.host_us) *
                     kSteps);
  for (int s = 0; s < kSteps; ++s) {
    v1::ModuleStepSample& sample = *out.add_step_samples();
    sample.set_step_index(s);
    sample.set_calls(1);
    sample.set_host_us(spec.host_us * Scale(s));
    sample.set_device_us(spec.device_us * Scale(s));
  }
  for (const Op& op : spec.operators) FillOperator(op, *out.add_operators());
  for (const Kernel& k : spec.kernels) FillKernel(k, *out.add_kernels());
  for (const Node& child : spec.children)
    FillNode(child, out.path(), *out.add_children());
}

}  // namespace

Rank Model(double linear0, double linear1, double backward_scale) {
  Rank r;
  r.step_us = 100 + (linear0 + linear1) * (1 + backward_scale);
  r.modules = {
      {"Model_0",
       linear0 + linear1,
       {{"Linear_0", linear0, {}, {{"aten::addmm", linear0}}},
        {"Linear_1", linear1, {}, {{"aten::addmm", linear1}}}}},
      Backward("Model_0.backward", (linear0 + linear1) * backward_scale,
               {Backward("Linear_1.backward", linear1 * backward_scale),
                Backward("Linear_0.backward", linear0 * backward_scale)})};
  r.operators = {{"aten::addmm", linear0 + linear1, 2},
                 {"aten::mm", (linear0 + linear1) * backward_scale, 2}};
  return r;
}

v1::WorkerProfile Worker(int rank, const Rank& spec) {
  v1::WorkerProfile w;
  w.mutable_worker()->set_rank(rank);
  w.mutable_worker()->set_worker_name("worker" + std::to_string(rank));
  w.set_module_source(v1::MODULE_TREE_SOURCE_ANNOTATIONS);
  const double cpu_exec = spec.step_us - spec.communication_us -
                          spec.kernel_us - spec.dataloader_us;
  for (int s = 0; s < kSteps; ++s) {
    v1::StepStats& step = *w.add_steps();
    step.set_step(s + 1);
    step.set_duration_us(spec.step_us * Scale(s));
    step.set_communication_us(spec.communication_us * Scale(s));
    step.set_kernel_us(spec.kernel_us * Scale(s));
    step.set_dataloader_us(spec.dataloader_us * Scale(s));
    step.set_cpu_exec_us(cpu_exec * Scale(s));
  }
  for (int s = 0; s < kSteps; ++s) {
    for (size_t k = 0; k < spec.all_reduce_us.size(); ++k) {
      v1::CollectiveCall& call = *w.add_collective_calls();
      call.set_collective("all_reduce");
      call.set_group_size(4);
      call.set_bytes(spec.all_reduce_bytes);
      call.set_step_index(s);
      call.set_step(s + 1);
      call.set_ordinal(static_cast<int32_t>(k));
      call.set_duration_us(spec.all_reduce_us[k] * Scale(s));
    }
  }
  v1::StepStats& average = *w.mutable_average_step();
  average.set_step(-1);
  average.set_duration_us(spec.step_us);
  average.set_communication_us(spec.communication_us);
  average.set_kernel_us(spec.kernel_us);
  average.set_dataloader_us(spec.dataloader_us);
  average.set_cpu_exec_us(cpu_exec);
  if (spec.gpu_utilization >= 0) {
    w.set_gpu_utilization(spec.gpu_utilization);
    v1::DeviceMetrics& device = *w.add_devices();
    device.set_gpu_utilization(spec.gpu_utilization);
    device.set_kernel_us(spec.kernel_us * kSteps);
  }
  for (const Kernel& k : spec.kernels) FillKernel(k, *w.add_kernels());
  v1::ModuleNode& root = *w.mutable_modules();
  root.set_name("(root)");
  root.set_kind(v1::MODULE_NODE_KIND_ROOT);
  root.set_calls(1);
  for (int s = 0; s < kSteps; ++s) {
    v1::ModuleStepSample& sample = *root.add_step_samples();
    sample.set_step_index(s);
    sample.set_calls(1);
    sample.set_host_us(spec.step_us * Scale(s));
  }
  double root_device_us = 0;
  for (const Node& node : spec.modules) {
    FillNode(node, "", *root.add_children());
    root_device_us += node.device_us;
  }
  if (root_device_us > 0) {
    root.set_device_us(root_device_us * kSteps);
    for (int s = 0; s < kSteps; ++s) {
      root.mutable_step_samples(s)->set_device_us(root_device_us * Scale(s));
    }
  }
  for (const Op& op : spec.operators) FillOperator(op, *w.add_operators());
  if (spec.peak_memory_bytes > 0) {
    v1::MemoryStats& memory = *w.add_memory();
    memory.set_device("cpu");
    memory.set_peak_allocated_bytes(
        static_cast<int64_t>(spec.peak_memory_bytes));
    memory.set_event_count(10);
    memory.set_peak_operator(spec.peak_operator);
    memory.set_peak_module(spec.peak_module);
    memory.set_peak_step_index(1);
    memory.set_peak_step(2);  // the steps are ProfilerStep#1..kSteps
    w.set_memory_source(v1::MEMORY_SOURCE_EVENTS);
  }
  if (spec.mm_allocation_bytes > 0) {
    v1::OperatorMemory& row = *w.add_operator_memory();
    row.set_name("aten::mm");
    row.set_device("cpu");
    for (int s = 0; s < kSteps; ++s) {
      v1::MemoryStepSample& sample = *row.add_step_samples();
      sample.set_step_index(s);
      sample.set_allocation_count(2);
      sample.set_allocation_bytes(
          static_cast<int64_t>(spec.mm_allocation_bytes * Scale(s)));
    }
  }
  return w;
}

v1::RunProfile Profile(const std::string& name,
                       const std::vector<Rank>& ranks) {
  v1::RunProfile run;
  run.set_run(name);
  for (size_t r = 0; r < ranks.size(); ++r)
    *run.add_workers() = Worker(static_cast<int>(r), ranks[r]);
  return run;
}

v1::RunProfile Profile(const std::string& name, const Rank& rank) {
  return Profile(name, std::vector<Rank>{rank});
}

v1::DiffReport Diff(const v1::RunProfile& a, const v1::RunProfile& b,
                    const v1::DiffOptions& options) {
  absl::StatusOr<v1::DiffReport> report = DiffRuns(a, b, options);
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *report : v1::DiffReport();
}

std::string Texts(const v1::DiffReport& report) {
  std::string out;
  for (const v1::Finding& f : report.findings())
    out += v1::FindingKind_Name(f.kind()) + ": " + f.text() + "\n";
  return out;
}

const v1::Finding* FirstOf(const v1::DiffReport& report, v1::FindingKind kind) {
  for (const v1::Finding& f : report.findings()) {
    if (f.kind() == kind) return &f;
  }
  return nullptr;
}

}  // namespace profdiff::differ::testing
