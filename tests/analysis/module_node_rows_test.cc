#include "analysis/module_node_rows.h"

#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/event_links.h"
#include "analysis/kernel_view.h"
#include "analysis/module_tree.h"
#include "analysis/operator_view.h"
#include "analysis/step_of_event.h"
#include "analysis/steps.h"
#include "analysis/worker_profile.h"
#include "tests/support/traces_dir.h"
#include "trace/kineto_reader.h"

namespace profdiff::analysis {
namespace {

// Every field of a row or sample, to compare whole (doubles to the bit: the
// same products added in the same order).
auto Fields(const OperatorStepSample& s) {
  return std::tuple(s.step, s.calls, s.host_self_ns, s.host_total_ns,
                    s.device_self_ns, s.device_total_ns);
}
auto Fields(const OperatorRow& r) {
  return std::tuple(r.name.value, r.input_shapes.value, r.calls, r.host_self_ns,
                    r.host_total_ns, r.device_self_ns, r.device_total_ns);
}
auto Fields(const KernelStepSample& s) {
  return std::tuple(s.step, s.calls, s.total_ns);
}
auto Fields(const KernelRow& r) {
  return std::tuple(r.name.value, r.op_name.value, r.calls, r.total_ns,
                    r.max_ns, r.min_ns, r.blocks_per_sm_weighted,
                    r.occupancy_weighted, r.has_blocks_per_sm, r.has_occupancy);
}

template <typename Row>
void ExpectSameRows(const std::vector<Row>& a, const std::vector<Row>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(Fields(a[i]), Fields(b[i])) << "row " << i;
    ASSERT_EQ(a[i].steps.size(), b[i].steps.size()) << "row " << i;
    for (size_t s = 0; s < a[i].steps.size(); ++s)
      EXPECT_EQ(Fields(a[i].steps[s]), Fields(b[i].steps[s])) << "row " << i;
  }
}

// Every module node of real traces (kernels with occupancy, several steps,
// a deep tree): the rows are the tables', node after node and again.
TEST(ModuleNodeRowsTest, EachNodesRowsAreTheTablesRows) {
  const std::vector<std::string> traces = {
      "tracelens/inference/xdit_flux_aiter_sage/profile_trace_rank_0.json.gz",
      "kineto/tb_plugin_samples/resnet50_num_workers_0/"
      "worker0.1623143089861.pt.trace.json.gz",
      "profdiff_h200/transformer-bf16.pt.trace.json.gz"};
  size_t nodes_with_rows = 0;
  for (const std::string& name : traces) {
    const std::filesystem::path path = test_support::TracesDir() / name;
    if (!std::filesystem::exists(path)) {
      GTEST_SKIP() << "SKIPPED: " << path << " is missing";
    }
    SCOPED_TRACE(name);
    trace::KinetoReader reader({.keep_python_frames = false});
    const absl::StatusOr<trace::Trace> trace = reader.ReadFile(path.string());
    ASSERT_TRUE(trace.ok()) << trace.status();
    const EventLinks links = LinkEvents(*trace);
    const StepWindows steps = FindSteps(*trace, links);
    const std::vector<int32_t> step_of_event =
        AssignEventsToSteps(*trace, links, steps);
    const OperatorTimes times = ComputeOperatorTimes(*trace, links);
    const ModuleTree tree =
        BuildModuleTree(*trace, links, &step_of_event, &steps);
    ModuleNodeRows rows(*trace, links, times, step_of_event);
    for (int pass = 0; pass < 2; ++pass) {
      for (const ModuleTreeNode& node : tree.nodes) {
        OperatorTable operators(*trace, times, kModuleNodeOperatorGrouping,
                                &step_of_event);
        for (const uint32_t op : node.operators) operators.Add(op);
        ExpectSameRows(rows.Operators(node.operators), operators.Rows());
        KernelTable kernels(*trace, links, kModuleNodeKernelGrouping,
                            &step_of_event);
        for (const uint32_t k : node.kernels) kernels.Add(k);
        ExpectSameRows(rows.Kernels(node.kernels), kernels.Rows());
        if (pass == 0 && !node.kernels.empty()) ++nodes_with_rows;
      }
    }
  }
  // The traces are what the test is about: hundreds of nodes with kernels.
  EXPECT_GT(nodes_with_rows, 500u);
}

}  // namespace
}  // namespace profdiff::analysis
