// User annotations (record_function ranges) in the module tree (issue 46):
// nested with nn.Module nodes by time on their thread, both ways, over the
// operator tree when there are no modules, with device time from the kernels
// their operators launched and a backward node through the forward-backward
// links. Every expected number is worked out in the comments (µs).
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/module_tree.h"
#include "analysis/step_of_event.h"
#include "analysis/steps.h"
#include "analysis/worker_profile.h"
#include "tests/analysis/fixture_trace.h"
#include "trace/kineto_reader.h"

namespace profdiff::analysis {
namespace {

using fixture::Profile;
using testing::ElementsAre;

std::string Event(const std::string& cat, const std::string& name, int ts,
                  int dur, const std::string& args = "") {
  return R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name +
         R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(ts) +
         R"(, "dur": )" + std::to_string(dur) +
         (args.empty() ? "" : R"(, "args": )" + args) + "}";
}

// An operator at [ts, ts+dur] launching a kernel of `kernel_dur` (correlation
// `corr`) that runs after the step.
std::string OpWithKernel(const std::string& name, int ts, int dur, int corr,
                         int kernel_dur) {
  const std::string c = std::to_string(corr);
  return Event("cpu_op", name, ts, dur) + ",\n" +
         Event("cuda_runtime", "cudaLaunchKernel", ts + 1, 1,
               R"({"correlation": )" + c + "}") +
         ",\n" + R"({"ph": "X", "cat": "kernel", "name": "k)" + c +
         R"(", "pid": 0, "tid": 7, "ts": )" +
         std::to_string(1000 + corr * 100) + R"(, "dur": )" +
         std::to_string(kernel_dur) + R"(, "args": {"correlation": )" + c +
         R"(, "device": 0, "stream": 7}})";
}

std::string Trace(const std::vector<std::string>& events) {
  std::string out = R"({"traceEvents": [)" +
                    Event("user_annotation", "ProfilerStep#1", 0, 2000);
  for (const std::string& e : events) out += ",\n" + e;
  return out + "]}";
}

std::vector<std::string> ChildNames(const v1::ModuleNode& node) {
  std::vector<std::string> names;
  for (const v1::ModuleNode& c : node.children()) names.push_back(c.name());
  return names;
}

const v1::ModuleNode& Child(const v1::ModuleNode& node,
                            const std::string& name) {
  for (const v1::ModuleNode& c : node.children()) {
    if (c.name() == name) return c;
  }
  ADD_FAILURE() << "no child " << name << " of " << node.path();
  return node;
}

// Net_0 [10,200]
//   Attention [20,100]           (annotation inside a module)
//     Linear_0 [30,90]
//       aten::linear [35,85] -> kernel 40
//   MLP [110,190]
//     aten::relu [120,150] -> kernel 10
TEST(ModuleTreeAnnotationsTest, AnAnnotationInsideAModule) {
  const v1::WorkerProfile p = Profile(Trace({
      Event("python_function", "nn.Module: Net_0", 10, 190),
      Event("user_annotation", "Attention", 20, 80),
      Event("python_function", "nn.Module: Linear_0", 30, 60),
      OpWithKernel("aten::linear", 35, 50, 1, 40),
      Event("user_annotation", "MLP", 110, 80),
      OpWithKernel("aten::relu", 120, 30, 2, 10),
  }));
  EXPECT_EQ(p.module_source(), v1::MODULE_TREE_SOURCE_PYTHON_MODULES);
  EXPECT_EQ(p.module_annotation_nodes(), 2);
  const v1::ModuleNode& net = Child(p.modules(), "Net_0");
  EXPECT_THAT(ChildNames(net), ElementsAre("Attention", "MLP"));
  const v1::ModuleNode& attention = Child(net, "Attention");
  EXPECT_EQ(attention.kind(), v1::MODULE_NODE_KIND_MODULE);
  EXPECT_EQ(attention.path(), "Net_0/Attention");
  EXPECT_DOUBLE_EQ(attention.host_us(), 80);
  EXPECT_DOUBLE_EQ(attention.host_self_us(), 80 - 60);
  EXPECT_DOUBLE_EQ(attention.device_us(), 40);
  EXPECT_DOUBLE_EQ(attention.device_self_us(), 0);  // Linear_0 launched it
  EXPECT_EQ(Child(attention, "Linear_0").path(), "Net_0/Attention/Linear_0");
  const v1::ModuleNode& mlp = Child(net, "MLP");
  EXPECT_DOUBLE_EQ(mlp.device_us(), 10);
  EXPECT_DOUBLE_EQ(mlp.device_self_us(), 10);
  EXPECT_DOUBLE_EQ(net.device_us(), 50);
  EXPECT_DOUBLE_EQ(net.host_self_us(), 190 - 80 - 80);
}

// Model_Forward [10,300]        (a module inside an annotation)
//   Net_0 [20,200]
//     aten::mm [30,60] -> kernel 25
//   aten::add [210,220] -> kernel 5 (in the annotation, outside Net_0)
TEST(ModuleTreeAnnotationsTest, AModuleInsideAnAnnotation) {
  const v1::WorkerProfile p = Profile(Trace({
      Event("user_annotation", "Model_Forward", 10, 290),
      Event("python_function", "nn.Module: Net_0", 20, 180),
      OpWithKernel("aten::mm", 30, 30, 1, 25),
      OpWithKernel("aten::add", 210, 10, 2, 5),
  }));
  EXPECT_EQ(p.module_annotation_nodes(), 1);
  EXPECT_THAT(ChildNames(p.modules()), ElementsAre("Model_Forward"));
  const v1::ModuleNode& forward = p.modules().children(0);
  EXPECT_THAT(ChildNames(forward), ElementsAre("Net_0"));
  EXPECT_EQ(forward.children(0).path(), "Model_Forward/Net_0");
  EXPECT_DOUBLE_EQ(forward.host_us(), 290);
  EXPECT_DOUBLE_EQ(forward.device_us(), 30);
  EXPECT_DOUBLE_EQ(forward.device_self_us(), 5);  // aten::add's kernel
  EXPECT_DOUBLE_EQ(forward.children(0).device_us(), 25);
}

// No nn.Module events: the annotations hold the operator tree that ran
// inside them (the Llama inference trace's shape).
// Model_Forward [10,400]
//   TransformerLayer_0 [20,200]
//     Attention [30,120]
//       aten::scaled_dot_product_attention [40,110]
//         aten::_efficient_attention_forward [50,100] -> kernel 60
//     FeedForward [130,190]
//       aten::linear [140,180] -> kernel 20
//   TransformerLayer_1 [210,390]
//     Attention [220,300]
//       aten::scaled_dot_product_attention [230,290] -> kernel 30
// aten::argmax [410,420] (outside every annotation: stays an operator node)
TEST(ModuleTreeAnnotationsTest, AnnotationsOverTheOperatorTree) {
  const v1::WorkerProfile p = Profile(Trace({
      Event("user_annotation", "Model_Forward", 10, 390),
      Event("user_annotation", "TransformerLayer_0", 20, 180),
      Event("user_annotation", "Attention", 30, 90),
      Event("cpu_op", "aten::scaled_dot_product_attention", 40, 70),
      OpWithKernel("aten::_efficient_attention_forward", 50, 50, 1, 60),
      Event("user_annotation", "FeedForward", 130, 60),
      OpWithKernel("aten::linear", 140, 40, 2, 20),
      Event("user_annotation", "TransformerLayer_1", 210, 180),
      Event("user_annotation", "Attention", 220, 80),
      OpWithKernel("aten::scaled_dot_product_attention", 230, 60, 3, 30),
      Event("cpu_op", "aten::argmax", 410, 10),
  }));
  EXPECT_EQ(p.module_source(), v1::MODULE_TREE_SOURCE_USER_ANNOTATIONS);
  EXPECT_EQ(p.module_annotation_nodes(), 6);
  EXPECT_THAT(ChildNames(p.modules()),
              ElementsAre("Model_Forward", "aten::argmax"));
  const v1::ModuleNode& forward = p.modules().children(0);
  EXPECT_EQ(forward.kind(), v1::MODULE_NODE_KIND_MODULE);
  EXPECT_EQ(p.modules().children(1).kind(), v1::MODULE_NODE_KIND_OPERATOR);
  EXPECT_THAT(ChildNames(forward),
              ElementsAre("TransformerLayer_0", "TransformerLayer_1"));
  const v1::ModuleNode& layer0 = forward.children(0);
  EXPECT_THAT(ChildNames(layer0), ElementsAre("Attention", "FeedForward"));
  // The efficient-attention kernel's operator prints under its real parent.
  const v1::ModuleNode& sdpa =
      Child(Child(layer0, "Attention"), "aten::scaled_dot_product_attention");
  EXPECT_THAT(ChildNames(sdpa),
              ElementsAre("aten::_efficient_attention_forward"));
  EXPECT_EQ(sdpa.children(0).path(),
            "Model_Forward/TransformerLayer_0/Attention/"
            "aten::scaled_dot_product_attention/"
            "aten::_efficient_attention_forward");
  EXPECT_DOUBLE_EQ(layer0.device_us(), 80);
  EXPECT_DOUBLE_EQ(forward.device_us(), 110);
  EXPECT_DOUBLE_EQ(Child(forward.children(1), "Attention").device_us(), 30);
}

// The profiler's and torch's own ranges keep their meaning: with only those,
// the tree is today's operator tree.
TEST(ModuleTreeAnnotationsTest, TheProfilersOwnRangesAreNotNodes) {
  const v1::WorkerProfile p = Profile(Trace({
      Event("user_annotation", "enumerate(DataLoader)#_Iter.__next__", 5, 5),
      Event("user_annotation", "DistributedDataParallel.forward", 10, 100),
      Event("user_annotation", "## Call CompiledFxGraph fabc123 ##", 20, 50),
      OpWithKernel("aten::mm", 30, 20, 1, 10),
      Event("user_annotation", "nccl:all_reduce", 120, 10),
      Event("user_annotation", "Optimizer.step#SGD.step", 140, 20),
      Event("cpu_op", "aten::add_", 145, 5),
  }));
  EXPECT_EQ(p.module_source(), v1::MODULE_TREE_SOURCE_OPERATORS);
  EXPECT_EQ(p.module_annotation_nodes(), 0);
  EXPECT_THAT(ChildNames(p.modules()), ElementsAre("aten::mm", "aten::add_"));
}

// Repeated calls of one annotation under one parent are one node, as a
// module's calls are (matched by path).
TEST(ModuleTreeAnnotationsTest, RepeatedCallsMergeByPath) {
  const v1::WorkerProfile p = Profile(Trace({
      Event("python_function", "nn.Module: Net_0", 10, 300),
      Event("user_annotation", "Block", 20, 50),
      OpWithKernel("aten::mm", 30, 20, 1, 10),
      Event("user_annotation", "Block", 100, 50),
      OpWithKernel("aten::mm", 110, 20, 2, 15),
  }));
  const v1::ModuleNode& net = Child(p.modules(), "Net_0");
  ASSERT_THAT(ChildNames(net), ElementsAre("Block"));
  EXPECT_EQ(net.children(0).calls(), 2);
  EXPECT_DOUBLE_EQ(net.children(0).host_us(), 100);
  EXPECT_DOUBLE_EQ(net.children(0).device_us(), 25);
  EXPECT_EQ(p.module_annotation_nodes(), 1);
}

// Backward through the forward-backward links: an annotation holding the
// forward op gets a ".backward" node where its module's would be.
// Main thread: Net_0 [10,200] > Block [20,150] > aten::linear [30,140]
//   seq 7 > aten::addmm [40,130] seq 8 -> kernel 50
// Autograd thread (Fwd thread id 1):
//   evaluate_function: AddmmBackward0 [300,380] > AddmmBackward0 [301,379]
//   seq 8 -> kernel 70
TEST(ModuleTreeAnnotationsTest, AnAnnotationGetsABackwardNode) {
  auto op = [](const std::string& name, int tid, int ts, int dur,
               const std::string& args) {
    return R"({"ph": "X", "cat": "cpu_op", "name": ")" + name +
           R"(", "pid": 1, "tid": )" + std::to_string(tid) + R"(, "ts": )" +
           std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) +
           (args.empty() ? "" : ", \"args\": " + args) + "}";
  };
  auto kernel = [](int corr, int ts, int dur) {
    return R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": )" +
           std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) +
           R"(, "args": {"correlation": )" + std::to_string(corr) +
           R"(, "device": 0, "stream": 7}})";
  };
  auto launch = [](int tid, int ts, int corr) {
    return R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": )" +
           std::to_string(tid) + R"(, "ts": )" + std::to_string(ts) +
           R"(, "dur": 2, "args": {"correlation": )" + std::to_string(corr) +
           "}}";
  };
  const std::string json = Trace({
      Event("python_function", "nn.Module: Net_0", 10, 190),
      Event("user_annotation", "Block", 20, 130),
      op("aten::linear", 1, 30, 110, R"({"Sequence number": 7})"),
      op("aten::addmm", 1, 40, 90, R"({"Sequence number": 8})"),
      launch(1, 45, 1),
      kernel(1, 500, 50),
      op("autograd::engine::evaluate_function: AddmmBackward0", 2, 300, 80, ""),
      op("AddmmBackward0", 2, 301, 78,
         R"({"Sequence number": 8, "Fwd thread id": 1})"),
      launch(2, 310, 2),
      kernel(2, 600, 70),
  });
  absl::StatusOr<trace::Trace> trace = trace::ReadKinetoTrace(json, "a.json");
  ASSERT_TRUE(trace.ok()) << trace.status();
  const EventLinks links = LinkEvents(*trace);
  const StepWindows steps = FindSteps(*trace, links);
  const std::vector<int32_t> step_of_event =
      AssignEventsToSteps(*trace, links, steps);
  const ModuleTree tree =
      BuildModuleTree(*trace, links, &step_of_event, &steps);
  std::vector<std::string> names;
  for (const ModuleTreeNode& n : tree.nodes) names.push_back(n.name);
  EXPECT_THAT(names, testing::IsSupersetOf({"Net_0", "Block", "Net_0.backward",
                                            "Block.backward"}));
  for (const ModuleTreeNode& n : tree.nodes) {
    if (n.name == "Block.backward") {
      EXPECT_EQ(n.kind, ModuleNodeKind::kBackward);
      EXPECT_EQ(tree.nodes[n.parent].name, "Net_0.backward");
      EXPECT_EQ(n.host_ns, 80'000);
      EXPECT_EQ(n.device_ns, 70'000);
    }
    if (n.name == "Block") {
      EXPECT_TRUE(n.user_annotation);
      EXPECT_EQ(n.backward_host_ns, 80'000);
    }
  }
  EXPECT_EQ(tree.user_annotation_nodes, 1);
}

}  // namespace
}  // namespace profdiff::analysis
