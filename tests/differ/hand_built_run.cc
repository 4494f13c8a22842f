#include "tests/differ/hand_built_run.h"

#include <gtest/gtest.h>

#include "analysis/run_digest.h"

namespace profdiff::differ::testing {
namespace {

void FillNode(const NodeSpec& spec, int steps, v1::ModuleNode& out) {
  out.set_name(spec.name);
  out.set_kind(spec.kind);
  out.set_calls(steps);
  out.set_host_us(spec.host_per_step * steps);
  out.set_device_us(spec.device_per_step * steps);
  out.set_backward_host_us(spec.backward_host_per_step * steps);
  for (int s = 0; s < steps; ++s) {
    v1::ModuleStepSample* sample = out.add_step_samples();
    sample->set_step_index(s);
    sample->set_calls(1);
    sample->set_host_us(spec.host_per_step);
    sample->set_device_us(spec.device_per_step);
    sample->set_backward_host_us(spec.backward_host_per_step);
  }
  for (const NodeSpec& child : spec.children)
    FillNode(child, steps, *out.add_children());
}

}  // namespace

v1::RunProfile MakeRun(const std::string& name,
                       const std::vector<NodeSpec>& top, int steps,
                       double step_us) {
  v1::RunProfile run;
  run.set_run(name);
  v1::WorkerProfile& w = *run.add_workers();
  w.mutable_worker()->set_worker_name("worker0");
  for (int s = 0; s < steps; ++s) {
    v1::StepStats* step = w.add_steps();
    step->set_step(s + 1);
    step->set_duration_us(step_us);
    step->set_cpu_exec_us(step_us);
  }
  w.mutable_average_step()->set_duration_us(step_us);
  w.mutable_average_step()->set_cpu_exec_us(step_us);
  v1::ModuleNode& root = *w.mutable_modules();
  root.set_name("(root)");
  root.set_kind(v1::MODULE_NODE_KIND_ROOT);
  for (int s = 0; s < steps; ++s) {
    v1::ModuleStepSample* sample = root.add_step_samples();
    sample->set_step_index(s);
    sample->set_calls(1);
    sample->set_host_us(step_us);
  }
  for (const NodeSpec& spec : top) FillNode(spec, steps, *root.add_children());
  return run;
}

const v1::ModuleDiffNode& Child(const v1::ModuleDiffNode& node,
                                const std::string& name) {
  for (const v1::ModuleDiffNode& c : node.children()) {
    if (c.name() == name) return c;
  }
  ADD_FAILURE() << "no child " << name << " under " << node.path();
  return node;
}

v1::RunDigest DigestOf(const v1::RunProfile& run) {
  absl::StatusOr<v1::RunDigest> digest = analysis::DigestOfRun(run, {});
  EXPECT_TRUE(digest.ok()) << digest.status();
  return digest.ok() ? *std::move(digest) : v1::RunDigest();
}

}  // namespace profdiff::differ::testing
