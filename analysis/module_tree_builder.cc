#include "analysis/module_tree_builder.h"

#include <algorithm>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "analysis/backward_links.h"
#include "analysis/profile_limits.h"
#include "analysis/sort_unless_sorted.h"
#include "analysis/step_breakdown.h"
#include "analysis/step_of_event.h"
#include "analysis/step_samples.h"
#include "base/str_cat.h"

namespace profdiff::analysis::module_tree_internal {

using trace::EventKind;

ModuleTree TreeBuilder::Build() {
  std::vector<uint32_t> containers =
      SelectNodeEvents(trace_, links_, &tree_.source);
  const bool nodes_are_operators =
      tree_.source == ModuleTreeSource::kOperators ||
      tree_.source == ModuleTreeSource::kUserAnnotations;
  module_kind_ =
      nodes_are_operators ? ModuleNodeKind::kOperator : ModuleNodeKind::kModule;
  role_.assign(t_.size(), Role::kNone);
  for (uint32_t e : containers) role_[e] = Role::kModule;
  backward_ = LinkBackward(trace_, links_);
  SummarizeBackwardLinks();
  if (!nodes_are_operators && backward_.linked() > 0)
    AddStepContainers(containers);

  // Nest containers; find the innermost container around each runtime call
  // and operator.
  event_parent_.assign(t_.size(), kNoEvent);
  leaf_node_event_.assign(t_.size(), kNoEvent);
  std::vector<uint32_t> leaves = links_.runtimes;
  if (!nodes_are_operators)
    leaves.insert(leaves.end(), links_.operators.begin(),
                  links_.operators.end());
  NestOnThreads(trace_, containers, leaves, event_parent_, leaf_node_event_);
  if (nodes_are_operators) {
    for (uint32_t op : links_.operators) leaf_node_event_[op] = op;
  }

  // Place containers into tree nodes in start order: a parent is always
  // placed first.
  SortUnlessSorted(containers.begin(), containers.end(),
                   [this](uint32_t a, uint32_t b) {
                     if (t_.start_ns[a] != t_.start_ns[b])
                       return t_.start_ns[a] < t_.start_ns[b];
                     if (t_.duration_ns[a] != t_.duration_ns[b])
                       return t_.duration_ns[a] > t_.duration_ns[b];
                     return a < b;
                   });
  tree_.nodes.emplace_back();
  tree_.nodes[0].kind = ModuleNodeKind::kRoot;
  depth_.push_back(0);
  is_other_.push_back(false);
  node_of_event_.assign(t_.size(), kNoEvent);
  in_forward_or_optimizer_.assign(t_.size(), false);
  for (uint32_t e : containers) {
    const uint32_t around = event_parent_[e];
    in_forward_or_optimizer_[e] =
        role_[e] == Role::kModule || role_[e] == Role::kOptimizer ||
        (around != kNoEvent && in_forward_or_optimizer_[around]);
    switch (role_[e]) {
      case Role::kModule:
        PlaceModule(e);
        break;
      case Role::kBackwardRoot:
        PlaceBackwardRoot(e);
        break;
      case Role::kOptimizer:
        PlaceOptimizer(e);
        break;
      case Role::kSync:
        PlaceSync(e);
        break;
      case Role::kNone:
        break;
    }
  }
  AddExposedSync(containers);
  NameGradientSync();
  SumBackwardNodes();
  AttributeDeviceAndOperators();
  Finish();
  return std::move(tree_);
}

int32_t TreeBuilder::StepOf(uint32_t e) const {
  return step_of_event_ != nullptr ? (*step_of_event_)[e] : kNoStep;
}

// A user annotation's node (design note 1), beside modules or operators.
bool TreeBuilder::IsUserAnnotation(uint32_t e) const {
  return t_.kind[e] == EventKind::kUserAnnotation &&
         IsUserStructure(trace_.strings.Get(t_.name[e]));
}

uint32_t TreeBuilder::AddNode(uint32_t parent, std::string name,
                              ModuleNodeKind kind, bool other) {
  ModuleTreeNode node;
  node.name = std::move(name);
  node.kind = kind;
  node.parent = parent;
  const auto index = static_cast<uint32_t>(tree_.nodes.size());
  tree_.nodes[parent].children.push_back(index);
  tree_.nodes.push_back(std::move(node));
  depth_.push_back(depth_[parent] + 1);
  is_other_.push_back(other);
  return index;
}

// The child of `parent` named as event `e`, made when new (or its "(other)"
// past the cap).
uint32_t TreeBuilder::ChildNamedAs(uint32_t parent, uint32_t e,
                                   ModuleNodeKind kind) {
  const uint64_t key = (uint64_t{parent} << 32) | t_.name[e].value;
  auto it = child_by_name_.find(key);
  if (it != child_by_name_.end()) return it->second;
  if (tree_.nodes.size() >= kMaxModuleNodes) {
    ++tree_.names_past_max_nodes;  // the name maps to its parent's "(other)"
                                   // (design note 4)
    const uint64_t other_key =
        (uint64_t{parent} << 8) | static_cast<uint8_t>(kind);
    auto [other, first] = other_child_.try_emplace(
        other_key, static_cast<uint32_t>(tree_.nodes.size()));
    if (first) AddNode(parent, kOtherName, kind, /*other=*/true);
    return child_by_name_.try_emplace(key, other->second).first->second;
  }
  const uint32_t node =
      AddNode(parent, NodeName(trace_.strings.Get(t_.name[e])), kind);
  if (IsUserAnnotation(e)) {
    tree_.nodes[node].user_annotation = true;
    ++tree_.user_annotation_nodes;
  }
  child_by_name_.try_emplace(key, node);
  return node;
}

void TreeBuilder::AddCalls(uint32_t node, uint32_t e, int32_t calls) {
  tree_.nodes[node].calls += calls;
  if (const int32_t step = StepOf(e); step != kNoStep)
    SampleOfStep(tree_.nodes[node].steps, step).calls += calls;
}

void TreeBuilder::AddHost(uint32_t node, uint32_t e, int64_t host_ns) {
  tree_.nodes[node].host_ns += host_ns;
  if (const int32_t step = StepOf(e); step != kNoStep)
    SampleOfStep(tree_.nodes[node].steps, step).host_ns += host_ns;
}

// The node of the container around `e`, or kNoEvent (top level, or a root
// left unattributed).
uint32_t TreeBuilder::EnclosingNode(uint32_t e) const {
  const uint32_t parent = event_parent_[e];
  return parent == kNoEvent ? kNoEvent : node_of_event_[parent];
}

void TreeBuilder::PlaceModule(uint32_t e) {
  const uint32_t around = event_parent_[e];
  const uint32_t enclosing = EnclosingNode(e);
  if (around != kNoEvent &&
      (enclosing == kNoEvent ||
       (role_[around] == Role::kSync && !in_forward_or_optimizer_[around]))) {
    // Inside a backward root left where it was, or inside a collective: that
    // one's time.
    node_of_event_[e] = enclosing;
    return;
  }
  const uint32_t parent = enclosing == kNoEvent ? 0 : enclosing;
  if (depth_[parent] == kMaxModuleDepth || is_other_[parent]) {
    // Too deep, or inside an "(other)" node (design note 4): its time is its
    // parent's already.
    node_of_event_[e] = parent;
    if (!is_other_[parent]) ++tree_.events_below_max_depth;
    return;
  }
  const uint32_t node = ChildNamedAs(
      parent, e, IsUserAnnotation(e) ? ModuleNodeKind::kModule : module_kind_);
  node_of_event_[e] = node;
  AddCalls(node, e, 1);
  AddHost(node, e, t_.duration_ns[e]);
}

// Device activity and operators reach their node and, inclusively, every
// ancestor.
void TreeBuilder::AttributeDeviceAndOperators() {
  device_intervals_.resize(tree_.nodes.size());
  for (uint32_t d : links_.device_activities) {
    const uint32_t runtime = links_.device_runtime[d];
    if (runtime == kNoEvent || leaf_node_event_[runtime] == kNoEvent) continue;
    const uint32_t direct = node_of_event_[leaf_node_event_[runtime]];
    if (direct == kNoEvent) continue;
    tree_.nodes[direct].device_self_ns += t_.duration_ns[d];
    const int32_t step = StepOf(d);
    for (uint32_t n = direct; n != kNoEvent; n = tree_.nodes[n].parent) {
      ModuleTreeNode& node = tree_.nodes[n];
      node.device_ns += t_.duration_ns[d];
      if (step != kNoStep && n != 0)
        SampleOfStep(node.steps, step).device_ns += t_.duration_ns[d];
      device_intervals_[n].push_back({t_.start_ns[d], t_.end_ns(d)});
      if (t_.kind[d] == EventKind::kKernel) node.kernels.push_back(d);
    }
  }
  for (uint32_t op : links_.operators) {
    if (leaf_node_event_[op] == kNoEvent) continue;
    for (uint32_t n = node_of_event_[leaf_node_event_[op]]; n != kNoEvent;
         n = tree_.nodes[n].parent) {
      tree_.nodes[n].operators.push_back(op);
    }
  }
}

void TreeBuilder::Finish() {
  // The root holds what its top-level nodes hold.
  ModuleTreeNode& root = tree_.nodes[0];
  for (uint32_t child : root.children)
    root.host_ns += tree_.nodes[child].host_ns;
  root.calls = 1;
  for (size_t n = 0; n < tree_.nodes.size(); ++n) {
    ModuleTreeNode& node = tree_.nodes[n];
    int64_t children_host = 0;
    for (uint32_t child : node.children)
      children_host += tree_.nodes[child].host_ns;
    node.host_self_ns = node.host_ns - children_host;
    node.device_union_ns =
        TotalLength(MergeIntervals(std::move(device_intervals_[n])));
  }
  for (const auto& [backward, module] : forward_of_backward_) {
    const ModuleTreeNode& b = tree_.nodes[backward];
    ModuleTreeNode& m = tree_.nodes[module];
    m.backward_host_ns = b.host_ns;
    m.backward_device_ns = b.device_ns;
    for (const ModuleStepSample& s : b.steps) {
      ModuleStepSample& into = SampleOfStep(m.steps, s.step);
      into.backward_host_ns = s.host_ns;
      into.backward_device_ns = s.device_ns;
    }
  }
}

}  // namespace profdiff::analysis::module_tree_internal
