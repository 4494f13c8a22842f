// TreeBuilder's backward pass, optimizer and gradient sync: where each
// backward root, optimizer step and collective goes in the tree (design notes
// 1 and 5 of module_tree.h).
#include <algorithm>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "analysis/backward_links.h"
#include "analysis/module_tree_builder.h"
#include "analysis/profile_limits.h"
#include "analysis/sort_unless_sorted.h"
#include "analysis/step_breakdown.h"
#include "analysis/step_of_event.h"
#include "analysis/step_samples.h"
#include "base/str_cat.h"

namespace profdiff::analysis::module_tree_internal {

using trace::EventKind;

void TreeBuilder::SummarizeBackwardLinks() {
  BackwardAttribution& b = tree_.backward;
  b.roots = static_cast<int32_t>(backward_.roots.size()) -
            backward_.accumulate_grad_roots;
  b.linked_by_flow = backward_.linked_by_flow;
  b.linked_by_sequence = backward_.linked_by_sequence;
  b.accumulate_grad_roots = backward_.accumulate_grad_roots;
  b.unlinked = backward_.unlinked;
  b.flows_unused = backward_.flows_unused;
  b.not_attributed = NotAttributedReason(tree_.source, backward_);
}

// Backward roots, optimizer ranges and collectives join the module events as
// containers.
void TreeBuilder::AddStepContainers(std::vector<uint32_t>& containers) {
  for (uint32_t root : backward_.roots) {
    if (role_[root] != Role::kNone) continue;
    role_[root] = Role::kBackwardRoot;
    containers.push_back(root);
  }
  for (uint32_t i = 0; i < t_.size(); ++i) {
    if (role_[i] != Role::kNone || t_.phase[i] != trace::EventPhase::kComplete)
      continue;
    if (t_.kind[i] != EventKind::kCpuOp &&
        t_.kind[i] != EventKind::kUserAnnotation)
      continue;
    const std::string_view name = trace_.strings.Get(t_.name[i]);
    if (name.starts_with(kOptimizerPrefix)) {
      role_[i] = Role::kOptimizer;
    } else if (IsCollectiveOpName(name)) {  // as the step breakdown counts them
      role_[i] = Role::kSync;
    } else {
      continue;
    }
    containers.push_back(i);
  }
}

// The ".backward" node of forward module `module`, made with its ancestors'
// when new (one per parent and name); or the nearest backward node above it
// (kNoEvent: none) past the limits.
uint32_t TreeBuilder::BackwardNodeOf(uint32_t module) {
  if (auto it = backward_of_.find(module); it != backward_of_.end())
    return it->second;
  const uint32_t up = tree_.nodes[module].parent;
  uint32_t parent = 0;  // under the root, after the forward tree
  if (up != 0 && tree_.nodes[up].kind == ModuleNodeKind::kModule) {
    parent = BackwardNodeOf(up);
  } else if (up != 0 && tree_.nodes[up].kind == ModuleNodeKind::kBackward) {
    parent = up;  // a module recomputed inside a backward node (activation
                  // checkpointing)
  }
  uint32_t node = parent == 0 ? kNoEvent : parent;
  if (parent != kNoEvent) {
    std::string name = tree_.nodes[module].name + std::string(kBackwardSuffix);
    if (auto it = backward_child_.find(std::pair(parent, name));
        it != backward_child_.end()) {
      node = it->second;
    } else if (depth_[parent] == kMaxModuleDepth) {
      ++tree_.events_below_max_depth;
    } else if (tree_.nodes.size() >= kMaxModuleNodes) {
      ++tree_.names_past_max_nodes;
    } else {
      node = AddNode(parent, name, ModuleNodeKind::kBackward);
      backward_child_.try_emplace(std::pair(parent, std::move(name)), node);
      forward_of_backward_.try_emplace(node, module);
    }
  }
  backward_of_.try_emplace(module, node);
  return node;
}

void TreeBuilder::PlaceBackwardRoot(uint32_t e) {
  if (event_parent_[e] != kNoEvent) {
    node_of_event_[e] =
        EnclosingNode(e);  // inside another container: its time is that one's
    return;
  }
  // An AccumulateGrad root with no root before it on its thread stays where
  // it is.
  uint32_t& last_on_thread =
      last_root_node_.try_emplace(std::pair(t_.pid[e], t_.tid[e]), kNoEvent)
          .first->second;
  uint32_t target = kNoEvent;
  const bool accumulate_grad = backward_.accumulate_grad[e];
  if (accumulate_grad) {
    target = last_on_thread;
  } else if (const uint32_t forward = backward_.forward_op[e];
             forward != kNoEvent) {
    const uint32_t container = leaf_node_event_[forward];
    const uint32_t module =
        container == kNoEvent ? kNoEvent : node_of_event_[container];
    if (module != kNoEvent &&
        tree_.nodes[module].kind == ModuleNodeKind::kModule) {
      target = BackwardNodeOf(module);
    } else {
      ++tree_.backward.outside_modules;
    }
  }
  last_on_thread = target;
  node_of_event_[e] = target;
  if (target == kNoEvent)
    return;  // stays where it is: (unknown) time under the root
  ++tree_.backward.attributed;
  AddCalls(target, e, accumulate_grad ? 0 : 1);
  AddHost(target, e, t_.duration_ns[e]);
}

void TreeBuilder::PlaceOptimizer(uint32_t e) {
  if (event_parent_[e] != kNoEvent) {
    node_of_event_[e] = EnclosingNode(e);
    return;
  }
  const uint32_t node = ChildNamedAs(0, e, ModuleNodeKind::kOptimizer);
  node_of_event_[e] = node;
  AddCalls(node, e, 1);
  AddHost(node, e, t_.duration_ns[e]);
}

uint32_t TreeBuilder::GradientSyncNode() {
  if (sync_node_ == kNoEvent)
    sync_node_ = AddNode(0, std::string(kCollectivesName),
                         ModuleNodeKind::kGradientSync);
  return sync_node_;
}

void TreeBuilder::PlaceSync(uint32_t e) {
  const uint32_t parent = event_parent_[e];
  if (parent != kNoEvent && role_[parent] == Role::kSync) {
    node_of_event_[e] =
        node_of_event_[parent];  // part of the collective around it
    return;
  }
  if (parent != kNoEvent && in_forward_or_optimizer_[parent]) {
    node_of_event_[e] =
        EnclosingNode(e);  // a forward module's or the optimizer's own work
    return;
  }
  const uint32_t node = GradientSyncNode();
  node_of_event_[e] = node;
  if (parent == kNoEvent) {
    top_level_sync_.push_back(e);  // counted in AddExposedSync
    return;
  }
  // Run inside a backward root (DDP's reducer hooks): carved out of that
  // root's node.
  AddCalls(node, e, 1);
  AddHost(node, e, t_.duration_ns[e]);
  if (const uint32_t from = node_of_event_[parent]; from != kNoEvent)
    AddHost(from, e, -t_.duration_ns[e]);
}

// Top-level collectives count where the threads that run the model ran
// nothing (design note 5).
void TreeBuilder::AddExposedSync(const std::vector<uint32_t>& containers) {
  if (top_level_sync_.empty()) return;
  absl::flat_hash_set<std::pair<int64_t, int64_t>> model_threads;
  std::vector<Interval> busy;
  for (uint32_t e : containers) {
    if (role_[e] == Role::kSync || event_parent_[e] != kNoEvent) continue;
    model_threads.insert(std::pair(t_.pid[e], t_.tid[e]));
    busy.push_back({t_.start_ns[e], t_.end_ns(e)});
  }
  for (uint32_t op : links_.operators) {
    if (links_.op_parent[op] != kNoEvent || role_[op] == Role::kSync) continue;
    if (model_threads.contains(std::pair(t_.pid[op], t_.tid[op])))
      busy.push_back({t_.start_ns[op], t_.end_ns(op)});
  }
  // A call is a collective the model's threads issued; the one a backend
  // thread runs for it (gloo:all_reduce beside c10d::allreduce_) adds its
  // time only.
  std::vector<Interval> sync;
  for (uint32_t e : top_level_sync_) {
    sync.push_back({t_.start_ns[e], t_.end_ns(e)});
    if (model_threads.contains(std::pair(t_.pid[e], t_.tid[e])))
      AddCalls(sync_node_, e, 1);
  }
  const std::vector<Interval> exposed = Difference(
      MergeIntervals(std::move(sync)), MergeIntervals(std::move(busy)));
  ModuleTreeNode& node = tree_.nodes[sync_node_];
  node.host_ns += TotalLength(exposed);
  if (steps_ == nullptr || step_of_event_ == nullptr) return;
  for (size_t s = 0; s < steps_->kept.size(); ++s) {
    const StepWindow& w = steps_->kept[s];
    const int64_t in_step =
        TotalLength(Clip(exposed, w.host_start_ns, w.host_end_ns));
    if (in_step > 0)
      SampleOfStep(node.steps, static_cast<int32_t>(s)).host_ns += in_step;
  }
}

// DDP's (or FSDP's) gradient sync when the model is wrapped in it; plain
// collectives otherwise.
void TreeBuilder::NameGradientSync() {
  if (sync_node_ == kNoEvent) return;
  for (uint32_t child : tree_.nodes[0].children) {
    const ModuleTreeNode& node = tree_.nodes[child];
    if (node.kind != ModuleNodeKind::kModule) continue;
    for (std::string_view prefix : kDataParallelPrefixes) {
      if (!node.name.starts_with(prefix)) continue;
      tree_.nodes[sync_node_].name =
          node.name + std::string(kGradientSyncSuffix);
      return;
    }
  }
}

// A backward node holds its children's time (they are not inside its roots'
// ranges); its forward module reports its values.
void TreeBuilder::SumBackwardNodes() {
  for (size_t n = tree_.nodes.size(); n-- > 1;) {
    ModuleTreeNode& node = tree_.nodes[n];
    if (node.kind != ModuleNodeKind::kBackward) continue;
    ModuleTreeNode& parent = tree_.nodes[node.parent];
    if (parent.kind != ModuleNodeKind::kBackward) continue;
    parent.calls += node.calls;
    parent.host_ns += node.host_ns;
    for (const ModuleStepSample& s : node.steps) {
      ModuleStepSample& into = SampleOfStep(parent.steps, s.step);
      into.calls += s.calls;
      into.host_ns += s.host_ns;
    }
  }
}

}  // namespace profdiff::analysis::module_tree_internal
