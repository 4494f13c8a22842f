// docs/semantics.md §7's backward attribution on a small hand-written trace;
// every expected number is worked out in the comments from the event times
// below (µs).
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/backward_links.h"
#include "analysis/module_tree.h"
#include "analysis/step_of_event.h"
#include "analysis/steps.h"
#include "trace/kineto_reader.h"

namespace profdiff::analysis {
namespace {

// Main thread (tid 10):
//   ProfilerStep#1 [0,1000]
//   Optimizer.zero_grad#SGD.zero_grad [5,15]
//   nn.Module: Net_0 [20,200]
//     nn.Module: Linear_0 [30,100]
//       aten::linear [35,95] seq 7
//         aten::addmm [40,90] seq 8 -- flow 5 starts here
//           cudaLaunchKernel [45,50] corr 1 -> k_fwd [100,150]
//     nn.Module: ReLU_0 [110,150]
//       aten::relu [115,145] seq 9
//   aten::mse_loss [210,230] seq 10 (in no module)
//   Optimizer.step#SGD.step [800,850]
// Autograd thread (tid 20), "Fwd thread id" 1 (the profiler's number for
// tid 10):
//   evaluate_function: MseLossBackward0 [300,320] > MseLossBackward0 [301,319]
//                                                   seq 10
//   evaluate_function: ReluBackward0 [330,360] > ReluBackward0 [331,359] seq 9
//   evaluate_function: AddmmBackward0 [370,420] > AddmmBackward0 [371,419]
//                                                 -- flow 5 ends here
//     cudaLaunchKernel [380,385] corr 2 -> k_bwd [430,500]
//   evaluate_function: torch::autograd::AccumulateGrad [425,465]
//     c10d::allreduce_ [430,460]
//       cudaLaunchKernel [440,445] corr 3 -> nccl_kernel [470,600]
// Backend thread (tid 30): gloo:all_reduce [450,700]
std::string Fixture(bool with_links) {
  const std::string seq10 =
      with_links ? R"(, "args": {"Sequence number": 10, "Fwd thread id": 1})"
                 : "";
  const std::string seq9 =
      with_links ? R"(, "args": {"Sequence number": 9, "Fwd thread id": 1})"
                 : "";
  auto forward_seq = [&](int n) {
    return with_links
               ? R"(, "args": {"Sequence number": )" + std::to_string(n) + "}"
               : "";
  };
  std::string events = R"(
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 10, "ts": 0, "dur": 1000},
    {"ph": "X", "cat": "user_annotation", "name": "Optimizer.zero_grad#SGD.zero_grad", "pid": 1, "tid": 10, "ts": 5, "dur": 10},
    {"ph": "X", "cat": "python_function", "name": "nn.Module: Net_0", "pid": 1, "tid": 10, "ts": 20, "dur": 180},
    {"ph": "X", "cat": "python_function", "name": "nn.Module: Linear_0", "pid": 1, "tid": 10, "ts": 30, "dur": 70},
    {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 10, "ts": 35, "dur": 60)" +
                       forward_seq(7) + R"(},
    {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 10, "ts": 40, "dur": 50)" +
                       forward_seq(8) + R"(},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 10, "ts": 45, "dur": 5, "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "k_fwd", "pid": 0, "tid": 7, "ts": 100, "dur": 50, "args": {"correlation": 1, "device": 0, "stream": 7}},
    {"ph": "X", "cat": "python_function", "name": "nn.Module: ReLU_0", "pid": 1, "tid": 10, "ts": 110, "dur": 40},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 10, "ts": 115, "dur": 30)" +
                       forward_seq(9) + R"(},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mse_loss", "pid": 1, "tid": 10, "ts": 210, "dur": 20)" +
                       forward_seq(10) + R"(},
    {"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#SGD.step", "pid": 1, "tid": 10, "ts": 800, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MseLossBackward0", "pid": 1, "tid": 20, "ts": 300, "dur": 20},
    {"ph": "X", "cat": "cpu_op", "name": "MseLossBackward0", "pid": 1, "tid": 20, "ts": 301, "dur": 18)" +
                       seq10 + R"(},
    {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: ReluBackward0", "pid": 1, "tid": 20, "ts": 330, "dur": 30},
    {"ph": "X", "cat": "cpu_op", "name": "ReluBackward0", "pid": 1, "tid": 20, "ts": 331, "dur": 28)" +
                       seq9 + R"(},
    {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: AddmmBackward0", "pid": 1, "tid": 20, "ts": 370, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "AddmmBackward0", "pid": 1, "tid": 20, "ts": 371, "dur": 48},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 20, "ts": 380, "dur": 5, "args": {"correlation": 2}},
    {"ph": "X", "cat": "kernel", "name": "k_bwd", "pid": 0, "tid": 7, "ts": 430, "dur": 70, "args": {"correlation": 2, "device": 0, "stream": 7}},
    {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "pid": 1, "tid": 20, "ts": 425, "dur": 40},
    {"ph": "X", "cat": "cpu_op", "name": "c10d::allreduce_", "pid": 1, "tid": 20, "ts": 430, "dur": 30},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 20, "ts": 440, "dur": 5, "args": {"correlation": 3}},
    {"ph": "X", "cat": "kernel", "name": "nccl_kernel", "pid": 0, "tid": 8, "ts": 470, "dur": 130, "args": {"correlation": 3, "device": 0, "stream": 8}},
    {"ph": "X", "cat": "cpu_op", "name": "gloo:all_reduce", "pid": 1, "tid": 30, "ts": 450, "dur": 250})";
  if (with_links) {
    events += R"(,
    {"ph": "s", "id": 5, "pid": 1, "tid": 10, "ts": 40, "cat": "fwdbwd", "name": "fwdbwd"},
    {"ph": "f", "id": 5, "pid": 1, "tid": 20, "ts": 371, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"})";
  }
  return R"({"traceEvents": [)" + events + "]}";
}

struct Built {
  trace::Trace trace;
  ModuleTree tree;
};

Built Build(bool with_links) {
  absl::StatusOr<trace::Trace> trace =
      trace::ReadKinetoTrace(Fixture(with_links), "fixture.json");
  EXPECT_TRUE(trace.ok()) << trace.status();
  Built built{*std::move(trace), {}};
  const EventLinks links = LinkEvents(built.trace);
  const StepWindows steps = FindSteps(built.trace, links);
  const std::vector<int32_t> step_of_event =
      AssignEventsToSteps(built.trace, links, steps);
  built.tree = BuildModuleTree(built.trace, links, &step_of_event, &steps);
  return built;
}

const ModuleTreeNode& Child(const ModuleTree& tree,
                            const ModuleTreeNode& parent,
                            const std::string& name) {
  for (uint32_t c : parent.children) {
    if (tree.nodes[c].name == name) return tree.nodes[c];
  }
  ADD_FAILURE() << "no child " << name;
  return tree.nodes[0];
}

std::vector<std::string> ChildNames(const ModuleTree& tree,
                                    const ModuleTreeNode& parent) {
  std::vector<std::string> names;
  for (uint32_t c : parent.children) names.push_back(tree.nodes[c].name);
  return names;
}

TEST(BackwardLinksTest,
     FlowsFirstThenSequenceNumbersThroughTheForwardThreadNumber) {
  absl::StatusOr<trace::Trace> trace =
      trace::ReadKinetoTrace(Fixture(true), "fixture.json");
  ASSERT_TRUE(trace.ok()) << trace.status();
  const EventLinks links = LinkEvents(*trace);
  const BackwardLinks b = LinkBackward(*trace, links);
  EXPECT_TRUE(b.has_flows);
  EXPECT_TRUE(b.has_sequence_numbers);
  EXPECT_EQ(b.roots.size(), 4u);
  EXPECT_EQ(b.linked_by_flow, 1);  // AddmmBackward0 -> aten::addmm
  EXPECT_EQ(b.linked_by_sequence,
            2);  // "Fwd thread id" 1 means tid 10: MseLoss, Relu
  EXPECT_EQ(b.unlinked, 0);
  EXPECT_EQ(b.accumulate_grad_roots, 1);
  for (uint32_t root : b.roots) {
    if (b.accumulate_grad[root]) continue;
    const std::string_view name = trace->strings.Get(trace->events.name[root]);
    const std::string_view forward =
        trace->strings.Get(trace->events.name[b.forward_op[root]]);
    if (name.ends_with("AddmmBackward0")) EXPECT_EQ(forward, "aten::addmm");
    if (name.ends_with("ReluBackward0")) EXPECT_EQ(forward, "aten::relu");
    if (name.ends_with("MseLossBackward0"))
      EXPECT_EQ(forward, "aten::mse_loss");
  }
}

TEST(ModuleTreeBackwardTest, TheWholeStepGetsNames) {
  const Built built = Build(true);
  const ModuleTree& tree = built.tree;
  const ModuleTreeNode& root = tree.nodes[0];
  EXPECT_THAT(ChildNames(tree, root),
              testing::ElementsAre("Optimizer.zero_grad#SGD.zero_grad", "Net_0",
                                   "Net_0.backward", "(collectives)",
                                   "Optimizer.step#SGD.step"));
  // The backward tree mirrors the forward one, in execution order.
  const ModuleTreeNode& net_backward = Child(tree, root, "Net_0.backward");
  EXPECT_EQ(net_backward.kind, ModuleNodeKind::kBackward);
  EXPECT_THAT(ChildNames(tree, net_backward),
              testing::ElementsAre("ReLU_0.backward", "Linear_0.backward"));
  const ModuleTreeNode& relu_backward =
      Child(tree, net_backward, "ReLU_0.backward");
  EXPECT_EQ(relu_backward.calls, 1);
  EXPECT_EQ(relu_backward.host_ns, 30'000);
  // Linear_0: AddmmBackward0 50 + AccumulateGrad 40 - the all-reduce run inside
  // it 30 = 60.
  const ModuleTreeNode& linear_backward =
      Child(tree, net_backward, "Linear_0.backward");
  EXPECT_EQ(linear_backward.calls,
            1);  // AccumulateGrad is grouped, not counted
  EXPECT_EQ(linear_backward.host_ns, 60'000);
  EXPECT_EQ(linear_backward.device_ns,
            70'000);  // k_bwd; the NCCL kernel is the sync's
  EXPECT_EQ(net_backward.calls, 2);
  EXPECT_EQ(net_backward.host_ns, 90'000);
  EXPECT_EQ(net_backward.device_ns, 70'000);
  ASSERT_EQ(net_backward.steps.size(), 1u);
  EXPECT_EQ(net_backward.steps[0].host_ns, 90'000);
  // Forward modules report their backward.
  const ModuleTreeNode& net = Child(tree, root, "Net_0");
  EXPECT_EQ(net.backward_host_ns, 90'000);
  EXPECT_EQ(net.backward_device_ns, 70'000);
  EXPECT_EQ(Child(tree, net, "Linear_0").backward_host_ns, 60'000);
  ASSERT_EQ(net.steps.size(), 1u);
  EXPECT_EQ(net.steps[0].backward_host_ns, 90'000);
  // Gradient sync: c10d::allreduce_ 30 carved from the backward, plus
  // gloo:all_reduce [450,700] where the model's threads ran nothing: after the
  // AccumulateGrad root ends at 465, 235.
  const ModuleTreeNode& sync = Child(tree, root, "(collectives)");
  EXPECT_EQ(sync.kind, ModuleNodeKind::kGradientSync);
  EXPECT_EQ(
      sync.calls,
      1);  // the backend thread's run of the same collective is not a call
  EXPECT_EQ(sync.host_ns, 30'000 + 235'000);
  EXPECT_EQ(sync.device_ns, 130'000);
  ASSERT_EQ(sync.steps.size(), 1u);
  EXPECT_EQ(sync.steps[0].host_ns, 265'000);
  EXPECT_EQ(Child(tree, root, "Optimizer.step#SGD.step").kind,
            ModuleNodeKind::kOptimizer);
  EXPECT_EQ(Child(tree, root, "Optimizer.step#SGD.step").host_ns, 50'000);
  // What is left in the step: the loss (20), its backward root in no module
  // (20) and idle time.
  int64_t children = 0;
  for (uint32_t c : root.children) children += tree.nodes[c].host_ns;
  EXPECT_EQ(children, 10'000 + 180'000 + 90'000 + 265'000 + 50'000);

  const BackwardAttribution& b = tree.backward;
  EXPECT_EQ(b.roots, 3);
  EXPECT_EQ(b.linked_by_flow, 1);
  EXPECT_EQ(b.linked_by_sequence, 2);
  EXPECT_EQ(b.attributed, 3);  // Relu, Addmm and the AccumulateGrad after it
  EXPECT_EQ(b.outside_modules, 1);  // MseLossBackward0
  EXPECT_EQ(b.not_attributed, "");
}

TEST(ModuleTreeBackwardTest, WithoutLinksTheTreeIsTheForwardTreeAndSaysWhy) {
  const Built linked = Build(true);
  const Built unlinked = Build(false);
  const ModuleTree& tree = unlinked.tree;
  EXPECT_THAT(ChildNames(tree, tree.nodes[0]), testing::ElementsAre("Net_0"));
  EXPECT_THAT(tree.backward.not_attributed,
              testing::HasSubstr("no fwdbwd flows"));
  EXPECT_EQ(tree.backward.roots, 3);
  EXPECT_EQ(tree.backward.attributed, 0);
  // The forward nodes are exactly those of the linked build, less the backward
  // values.
  const ModuleTreeNode& a = Child(linked.tree, linked.tree.nodes[0], "Net_0");
  const ModuleTreeNode& b = Child(tree, tree.nodes[0], "Net_0");
  EXPECT_EQ(a.host_ns, b.host_ns);
  EXPECT_EQ(a.device_ns, b.device_ns);
  EXPECT_EQ(a.operators, b.operators);
  EXPECT_EQ(b.backward_host_ns, 0);
  EXPECT_EQ(ChildNames(linked.tree, a), ChildNames(tree, b));
}

// --- edge cases, each on a few events
// ------------------------------------------------------

std::string Op(const std::string& name, int tid, int ts, int dur,
               const std::string& args = "", int pid = 1) {
  return R"({"ph": "X", "cat": "cpu_op", "name": ")" + name + R"(", "pid": )" +
         std::to_string(pid) + R"(, "tid": )" + std::to_string(tid) +
         R"(, "ts": )" + std::to_string(ts) + R"(, "dur": )" +
         std::to_string(dur) + (args.empty() ? "" : R"(, "args": )" + args) +
         "}";
}
std::string Module(const std::string& name, int ts, int dur) {
  return R"({"ph": "X", "cat": "python_function", "name": "nn.Module: )" +
         name + R"(", "pid": 1, "tid": 10, "ts": )" + std::to_string(ts) +
         R"(, "dur": )" + std::to_string(dur) + "}";
}
std::string Flow(char phase, int id, int tid, int ts) {
  return R"({"ph": ")" + std::string(1, phase) + R"(", "id": )" +
         std::to_string(id) + R"(, "pid": 1, "tid": )" + std::to_string(tid) +
         R"(, "ts": )" + std::to_string(ts) +
         R"(, "cat": "fwdbwd", "name": "fwdbwd")" +
         (phase == 'f' ? R"(, "bp": "e")" : "") + "}";
}

ModuleTree TreeOf(const std::vector<std::string>& events) {
  std::string json = R"({"traceEvents": [)";
  for (size_t i = 0; i < events.size(); ++i)
    json += (i ? ",\n" : "") + events[i];
  absl::StatusOr<trace::Trace> trace =
      trace::ReadKinetoTrace(json + "]}", "edge.json");
  EXPECT_TRUE(trace.ok()) << trace.status();
  return BuildModuleTree(*trace, LinkEvents(*trace));
}

constexpr char kRoot[] = "autograd::engine::evaluate_function: ";
constexpr char kAccumulate[] =
    "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad";

TEST(ModuleTreeBackwardTest, AccumulateGradFirstOnItsThreadStaysWhereItIs) {
  const ModuleTree tree =
      TreeOf({Module("Linear_0", 0, 50), Op("aten::addmm", 10, 5, 40),
              Op(kAccumulate, 20, 100, 10),
              Op(std::string(kRoot) + "AddmmBackward0", 20, 120, 30),
              Op("AddmmBackward0", 20, 121, 28), Flow('s', 1, 10, 5),
              Flow('f', 1, 20, 121)});
  EXPECT_EQ(tree.backward.attributed, 1);  // the AddmmBackward0 root only
  const ModuleTreeNode& root = tree.nodes[0];
  int64_t children = 0;
  for (uint32_t c : root.children) children += tree.nodes[c].host_ns;
  EXPECT_EQ(root.host_ns, children);  // nothing was added to the root itself
  EXPECT_EQ(Child(tree, root, "Linear_0.backward").host_ns, 30'000);
}

TEST(ModuleTreeBackwardTest,
     FlowsWithAMissingOrRepeatedEndLinkNothingAndAreCounted) {
  const std::string backward = std::string(kRoot) + "AddmmBackward0";
  const ModuleTree tree =
      TreeOf({Module("Linear_0", 0, 50), Op("aten::addmm", 10, 5, 40),
              Op(backward, 20, 120, 30), Op("AddmmBackward0", 20, 121, 28),
              Flow('s', 1, 10, 5),                           // no end
              Flow('f', 2, 20, 121),                         // no start
              Flow('s', 3, 10, 5), Flow('f', 3, 20, 121),    // links
              Flow('f', 3, 20, 121),                         // a repeated end
              Flow('s', 4, 10, 7), Flow('f', 4, 20, 999)});  // ends on no op
  EXPECT_EQ(tree.backward.linked_by_flow, 1);
  EXPECT_EQ(tree.backward.flows_unused, 4);
  EXPECT_EQ(Child(tree, tree.nodes[0], "Linear_0.backward").calls, 1);
}

TEST(ModuleTreeBackwardTest, ARootInsideAForwardModuleCountsInThatModule) {
  // torch.autograd.grad called inside a forward: the module's own time, not a
  // backward node.
  const ModuleTree tree =
      TreeOf({Module("Net_0", 0, 200), Module("Linear_0", 10, 50),
              Op("aten::addmm", 10, 15, 40),
              Op(std::string(kRoot) + "AddmmBackward0", 10, 100, 30),
              Op("AddmmBackward0", 10, 101, 28), Flow('s', 1, 10, 15),
              Flow('f', 1, 10, 101)});
  const ModuleTreeNode& root = tree.nodes[0];
  EXPECT_THAT(ChildNames(tree, root), testing::ElementsAre("Net_0"));
  EXPECT_EQ(Child(tree, root, "Net_0").host_ns, 200'000);
  EXPECT_EQ(tree.backward.attributed, 0);
}

TEST(ModuleTreeBackwardTest, NestedRootsCountInTheOuterOne) {
  // Reentrant backward (activation checkpointing): the outer root's node holds
  // the inner one.
  const ModuleTree tree = TreeOf(
      {Module("Linear_0", 0, 50), Op("aten::addmm", 10, 5, 40),
       Module("ReLU_0", 60, 20), Op("aten::relu", 10, 62, 10),
       Op(std::string(kRoot) + "CheckpointFunctionBackward", 20, 100, 100),
       Op("CheckpointFunctionBackward", 20, 101, 98),
       Op(std::string(kRoot) + "ReluBackward0", 20, 120, 20),
       Op("ReluBackward0", 20, 121, 18), Flow('s', 1, 10, 5),
       Flow('f', 1, 20, 101), Flow('s', 2, 10, 62), Flow('f', 2, 20, 121)});
  const ModuleTreeNode& root = tree.nodes[0];
  EXPECT_THAT(ChildNames(tree, root),
              testing::ElementsAre("Linear_0", "ReLU_0", "Linear_0.backward"));
  EXPECT_EQ(Child(tree, root, "Linear_0.backward").host_ns, 100'000);
  EXPECT_EQ(tree.backward.linked_by_flow, 2);
  EXPECT_EQ(tree.backward.attributed, 1);
}

TEST(ModuleTreeBackwardTest, SequenceNumbersLinkWithinTheirProcessOnly) {
  // Two processes in one file, both with sequence number 5; each backward root
  // finds its own.
  const std::string seq5 = R"({"Sequence number": 5})";
  const std::string bwd5 = R"({"Sequence number": 5, "Fwd thread id": 1})";
  const ModuleTree tree =
      TreeOf({Module("Linear_0", 0, 50), Op("aten::addmm", 10, 5, 40, seq5, 1),
              Op("aten::addmm", 10, 5, 40, seq5, 2),
              Op(std::string(kRoot) + "AddmmBackward0", 20, 100, 30, "", 2),
              Op("AddmmBackward0", 20, 101, 28, bwd5, 2)});
  EXPECT_EQ(tree.backward.linked_by_sequence, 1);
  // The linked op is pid 2's, which runs in no module (the module is pid 1's).
  EXPECT_EQ(tree.backward.outside_modules, 1);
  EXPECT_EQ(tree.backward.attributed, 0);
}

}  // namespace
}  // namespace profdiff::analysis
