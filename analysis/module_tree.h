// The module tree (docs/semantics.md §7): nn.Module calls nested as the model
// nests them, merged by path across calls and steps, with host time, device
// time launched from inside each node, and the operators and kernels that ran
// inside it.
//
// Design:
// 1. Source, first that exists: python_function "nn.Module: <Class>_<n>"
//    events; user_annotation "nn.Module: ..." ranges; else the operator tree
//    (what the TensorBoard plugin shows). Beside either, the user's own
//    record_function ranges (user_annotation events that are not the
//    profiler's or torch's own: ProfilerStep#, DataLoader, Optimizer.*,
//    collective wrappers, DDP/FSDP forward, compiled-graph calls) are nodes
//    too, nested with the others by time; over the operator tree they hold
//    the operators that ran inside them (source kUserAnnotations).
// 2. Nesting is by time containment on each thread (works for every era, with
//    or without Python ids); children keep the order in which they first ran
//    (source order).
// 3. Device time reaches a node through runtime call -> correlation -> device
//    activity.
// 4. Bounded (analysis/profile_limits.h): events nested below kMaxModuleDepth
//    count in their deepest kept ancestor, and once kMaxModuleNodes nodes exist
//    a parent's new children share one "(other)" child; so building is linear
//    in events and the tree stays parseable.
// 5. The rest of the step (only when some backward root links to its forward
//    op, so a trace without links builds exactly the forward tree): each
//    top-level backward root goes to a "<Module>.backward" node of the module
//    that directly holds its forward op (analysis/backward_links.h),
//    AccumulateGrad roots with the root before them on their thread; backward
//    nodes nest as their modules do and follow the forward tree under the root.
//    Top-level "Optimizer.*" ranges are optimizer nodes. Collectives outside
//    every forward module and optimizer are one gradient-sync node: those run
//    inside backward roots are carved out of their backward node; those on
//    other threads count the time they ran while the threads that run the model
//    ran nothing (the time the step waited for them).
#ifndef PROFDIFF_ANALYSIS_MODULE_TREE_H_
#define PROFDIFF_ANALYSIS_MODULE_TREE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/event_links.h"
#include "analysis/interval_set.h"
#include "analysis/steps.h"
#include "profdiff/v1/profile.pb.h"
#include "trace/trace.h"

namespace profdiff::analysis {

enum class ModuleTreeSource : uint8_t {
  kPythonModules,
  kAnnotations,
  kOperators,
  kUserAnnotations  // user annotations over the operator tree
};
enum class ModuleNodeKind : uint8_t {
  kRoot,
  kModule,
  kOperator,
  kBackward,
  kOptimizer,
  kGradientSync
};

// A node's share of one kept step.
struct ModuleStepSample {
  int32_t step = 0;  // index into StepWindows::kept
  int32_t calls = 0;
  int64_t host_ns = 0;
  int64_t device_ns = 0;
  int64_t backward_host_ns =
      0;  // forward modules: their ".backward" node's values
  int64_t backward_device_ns = 0;
};

struct ModuleTreeNode {
  // "Linear_3" (module), the operator name, "Linear_3.backward",
  // "Optimizer.step#SGD.step", "DistributedDataParallel_0.gradient_sync"; ""
  // for the root
  std::string name;
  ModuleNodeKind kind = ModuleNodeKind::kModule;
  uint32_t parent = kNoEvent;
  std::vector<uint32_t> children;  // in first-call order
  int32_t calls = 0;         // backward nodes: autograd functions run inside it
  int64_t host_ns = 0;       // Σ wall time of its calls
  int64_t host_self_ns = 0;  // host minus the children's host
  int64_t device_ns = 0;  // Σ device activity launched from inside (inclusive)
  int64_t device_self_ns =
      0;  // launched from inside it but outside every child
  int64_t device_union_ns = 0;
  std::vector<uint32_t>
      operators;  // operator events inside it, children's included
  std::vector<uint32_t>
      kernels;  // kernel events launched from inside it, children's included
  std::vector<ModuleStepSample>
      steps;  // by step, for steps where it ran (not for the root)
  int64_t backward_host_ns =
      0;  // forward modules: host and device time of their ".backward"
  int64_t backward_device_ns = 0;
  bool user_annotation = false;  // made from record_function ranges
};

// How much of the backward pass reached the tree, and why not when none did.
struct BackwardAttribution {
  int32_t roots = 0;  // backward roots other than AccumulateGrad
  int32_t linked_by_flow = 0;
  int32_t linked_by_sequence = 0;
  int32_t accumulate_grad_roots = 0;
  int32_t attributed =
      0;  // top-level roots (AccumulateGrad too) under a backward node
  int32_t outside_modules =
      0;                 // top-level roots whose forward op ran in no module
  int32_t unlinked = 0;  // roots other than AccumulateGrad that no link reached
  int32_t flows_unused = 0;  // fwdbwd flows that linked nothing (BackwardLinks)
  std::string not_attributed;  // why no backward node exists, when none does
};

struct ModuleTree {
  ModuleTreeSource source = ModuleTreeSource::kOperators;
  std::vector<ModuleTreeNode>
      nodes;  // nodes[0] is the root; parents precede children
  int64_t events_below_max_depth =
      0;  // node events folded into a level-kMaxModuleDepth node
  int64_t names_past_max_nodes =
      0;  // (parent, name) pairs put in an "(other)" node
  int32_t user_annotation_nodes = 0;  // nodes made from user annotations
  BackwardAttribution backward;
};

// The proto spelling of a node kind.
v1::ModuleNodeKind ProtoModuleNodeKind(ModuleNodeKind kind);

// `step_of_event` (from AssignEventsToSteps) and `steps` may be null: then
// nodes carry no step samples.
ModuleTree BuildModuleTree(const trace::Trace& trace, const EventLinks& links,
                           const std::vector<int32_t>* step_of_event = nullptr,
                           const StepWindows* steps = nullptr);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_MODULE_TREE_H_
