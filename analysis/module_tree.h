// The module tree (SEMANTICS.md §7): nn.Module calls nested as the model nests them, merged by
// path across calls and steps, with host time, device time launched from inside each node, and
// the operators and kernels that ran inside it.
//
// Design:
// 1. Source, first that exists: python_function "nn.Module: <Class>_<n>" events; user_annotation
//    "nn.Module: ..." ranges; else the operator tree (what the TensorBoard plugin shows).
// 2. Nesting is by time containment on each thread (works for every era, with or without
//    Python ids); children keep the order in which they first ran (source order).
// 3. Device time reaches a node through runtime call -> correlation -> device activity.
// 4. Bounded (analysis/profile_limits.h): events nested below kMaxModuleDepth count in their
//    deepest kept ancestor, and once kMaxModuleNodes nodes exist a parent's new children share
//    one "(other)" child; so building is linear in events and the tree stays parseable.
#ifndef PROFDIFF_ANALYSIS_MODULE_TREE_H_
#define PROFDIFF_ANALYSIS_MODULE_TREE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/event_links.h"
#include "analysis/interval_set.h"
#include "trace/trace.h"

namespace profdiff::analysis {

enum class ModuleTreeSource : uint8_t { kPythonModules, kAnnotations, kOperators };
enum class ModuleNodeKind : uint8_t { kRoot, kModule, kOperator };

// A node's share of one kept step.
struct ModuleStepSample {
  int32_t step = 0;  // index into StepWindows::kept
  int32_t calls = 0;
  int64_t host_ns = 0;
  int64_t device_ns = 0;
};

struct ModuleTreeNode {
  std::string name;  // "Linear_3" (module) or the operator name; "" for the root
  ModuleNodeKind kind = ModuleNodeKind::kModule;
  uint32_t parent = kNoEvent;
  std::vector<uint32_t> children;  // in first-call order
  int32_t calls = 0;
  int64_t host_ns = 0;        // Σ wall time of its calls
  int64_t host_self_ns = 0;   // host minus the children's host
  int64_t device_ns = 0;      // Σ device activity launched from inside (inclusive)
  int64_t device_self_ns = 0; // launched from inside it but outside every child
  int64_t device_union_ns = 0;
  std::vector<uint32_t> operators;  // operator events inside it, children's included
  std::vector<uint32_t> kernels;    // kernel events launched from inside it, children's included
  std::vector<ModuleStepSample> steps;  // by step, for steps where it ran (not for the root)
};

struct ModuleTree {
  ModuleTreeSource source = ModuleTreeSource::kOperators;
  std::vector<ModuleTreeNode> nodes;  // nodes[0] is the root; parents precede children
  int64_t events_below_max_depth = 0;  // node events folded into a level-kMaxModuleDepth node
  int64_t names_past_max_nodes = 0;    // (parent, name) pairs put in an "(other)" node
};

// `step_of_event` (from AssignEventsToSteps) may be null: then nodes carry no step samples.
ModuleTree BuildModuleTree(const trace::Trace& trace, const EventLinks& links,
                           const std::vector<int32_t>* step_of_event = nullptr);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_MODULE_TREE_H_
