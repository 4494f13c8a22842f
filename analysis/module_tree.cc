#include "analysis/module_tree.h"

#include <algorithm>

#include <absl/container/flat_hash_map.h>

#include "analysis/profile_limits.h"
#include "analysis/sort_unless_sorted.h"
#include "analysis/step_of_event.h"
#include "analysis/step_samples.h"

namespace profdiff::analysis {
namespace {

using trace::EventKind;

constexpr std::string_view kModulePrefix = "nn.Module: ";

// Node events and where they came from, by SEMANTICS.md §7's order of preference.
std::vector<uint32_t> SelectNodeEvents(const trace::Trace& trace, const EventLinks& links,
                                       ModuleTreeSource* source) {
  const trace::EventTable& t = trace.events;
  std::vector<uint32_t> modules;
  std::vector<uint32_t> annotations;
  for (uint32_t i = 0; i < t.size(); ++i) {
    if (t.phase[i] != trace::EventPhase::kComplete) continue;
    if (t.kind[i] == EventKind::kModule) {
      modules.push_back(i);
    } else if (t.kind[i] == EventKind::kUserAnnotation &&
               trace.strings.Get(t.name[i]).starts_with(kModulePrefix)) {
      annotations.push_back(i);
    }
  }
  if (!modules.empty()) {
    *source = ModuleTreeSource::kPythonModules;
    return modules;
  }
  if (!annotations.empty()) {
    *source = ModuleTreeSource::kAnnotations;
    return annotations;
  }
  *source = ModuleTreeSource::kOperators;
  return links.operators;
}

std::string NodeName(std::string_view event_name) {
  if (event_name.starts_with(kModulePrefix)) event_name.remove_prefix(kModulePrefix.size());
  return std::string(event_name);
}

void AddNode(ModuleTree& tree, std::vector<int32_t>& depth, uint32_t parent, std::string name,
             ModuleNodeKind kind) {
  ModuleTreeNode node;
  node.name = std::move(name);
  node.kind = kind;
  node.parent = parent;
  tree.nodes[parent].children.push_back(static_cast<uint32_t>(tree.nodes.size()));
  tree.nodes.push_back(std::move(node));
  depth.push_back(depth[parent] + 1);
}

}  // namespace

ModuleTree BuildModuleTree(const trace::Trace& trace, const EventLinks& links,
                           const std::vector<int32_t>* step_of_event) {
  auto step_of = [step_of_event](uint32_t e) {
    return step_of_event != nullptr ? (*step_of_event)[e] : kNoStep;
  };
  const trace::EventTable& t = trace.events;
  ModuleTree tree;
  std::vector<uint32_t> node_events = SelectNodeEvents(trace, links, &tree.source);
  const bool nodes_are_operators = tree.source == ModuleTreeSource::kOperators;

  // Nest node events; find the innermost node event around each runtime call and operator.
  std::vector<uint32_t> event_parent(t.size(), kNoEvent);
  std::vector<uint32_t> leaf_node_event(t.size(), kNoEvent);
  std::vector<uint32_t> leaves = links.runtimes;
  if (!nodes_are_operators) leaves.insert(leaves.end(), links.operators.begin(), links.operators.end());
  NestOnThreads(trace, node_events, leaves, event_parent, leaf_node_event);
  if (nodes_are_operators) {
    for (uint32_t op : links.operators) leaf_node_event[op] = op;
  }

  // Merge node events into tree nodes by (parent node, name), in start order.
  SortUnlessSorted(node_events.begin(), node_events.end(), [&t](uint32_t a, uint32_t b) {
    if (t.start_ns[a] != t.start_ns[b]) return t.start_ns[a] < t.start_ns[b];
    if (t.duration_ns[a] != t.duration_ns[b]) return t.duration_ns[a] > t.duration_ns[b];
    return a < b;
  });
  tree.nodes.emplace_back();
  tree.nodes[0].kind = ModuleNodeKind::kRoot;
  std::vector<uint32_t> node_of_event(t.size(), kNoEvent);
  absl::flat_hash_map<uint64_t, uint32_t> child_by_name;  // parent node << 32 | name id
  const ModuleNodeKind kind = nodes_are_operators ? ModuleNodeKind::kOperator : ModuleNodeKind::kModule;
  std::vector<int32_t> depth(1, 0);      // by node
  std::vector<bool> is_other(1, false);  // by node
  absl::flat_hash_map<uint32_t, uint32_t> other_child;  // parent node -> its "(other)" child
  for (uint32_t e : node_events) {
    const uint32_t parent_event = event_parent[e];
    // A parent always starts first (or is longer at the same start), so it is already placed.
    const uint32_t parent = parent_event == kNoEvent ? 0 : node_of_event[parent_event];
    if (depth[parent] == kMaxModuleDepth || is_other[parent]) {
      // Too deep, or inside an "(other)" node (design note 4): the event's time is inside its
      // parent's already.
      node_of_event[e] = parent;
      if (!is_other[parent]) ++tree.events_below_max_depth;
      continue;
    }
    const uint64_t key = (uint64_t{parent} << 32) | t.name[e].value;
    auto it = child_by_name.find(key);
    if (it == child_by_name.end() && tree.nodes.size() >= kMaxModuleNodes) {
      ++tree.names_past_max_nodes;
      it = child_by_name.try_emplace(key, 0).first;  // the name maps to its parent's "(other)"
      auto [other, first] = other_child.try_emplace(parent, static_cast<uint32_t>(tree.nodes.size()));
      it->second = other->second;
      if (first) {
        AddNode(tree, depth, parent, kOtherName, kind);
        is_other.push_back(true);
      }
    } else if (it == child_by_name.end()) {
      it = child_by_name.try_emplace(key, static_cast<uint32_t>(tree.nodes.size())).first;
      AddNode(tree, depth, parent, NodeName(trace.strings.Get(t.name[e])), kind);
      is_other.push_back(false);
    }
    ModuleTreeNode& node = tree.nodes[it->second];
    node_of_event[e] = it->second;
    ++node.calls;
    node.host_ns += t.duration_ns[e];
    if (const int32_t step = step_of(e); step != kNoStep) {
      ModuleStepSample& sample = SampleOfStep(node.steps, step);
      ++sample.calls;
      sample.host_ns += t.duration_ns[e];
    }
  }

  // Device activity and operators reach their node and, inclusively, every ancestor.
  std::vector<std::vector<Interval>> device_intervals(tree.nodes.size());
  for (uint32_t d : links.device_activities) {
    const uint32_t runtime = links.device_runtime[d];
    if (runtime == kNoEvent || leaf_node_event[runtime] == kNoEvent) continue;
    const uint32_t direct = node_of_event[leaf_node_event[runtime]];
    tree.nodes[direct].device_self_ns += t.duration_ns[d];
    const int32_t step = step_of(d);
    for (uint32_t n = direct; n != kNoEvent; n = tree.nodes[n].parent) {
      tree.nodes[n].device_ns += t.duration_ns[d];
      if (step != kNoStep && n != 0) SampleOfStep(tree.nodes[n].steps, step).device_ns += t.duration_ns[d];
      device_intervals[n].push_back({t.start_ns[d], t.end_ns(d)});
      if (t.kind[d] == EventKind::kKernel) tree.nodes[n].kernels.push_back(d);
    }
  }
  for (uint32_t op : links.operators) {
    if (leaf_node_event[op] == kNoEvent) continue;
    for (uint32_t n = node_of_event[leaf_node_event[op]]; n != kNoEvent; n = tree.nodes[n].parent) {
      tree.nodes[n].operators.push_back(op);
    }
  }
  // The root holds what its top-level nodes hold.
  for (uint32_t child : tree.nodes[0].children) tree.nodes[0].host_ns += tree.nodes[child].host_ns;
  tree.nodes[0].calls = 1;
  for (size_t n = 0; n < tree.nodes.size(); ++n) {
    ModuleTreeNode& node = tree.nodes[n];
    int64_t children_host = 0;
    for (uint32_t child : node.children) children_host += tree.nodes[child].host_ns;
    node.host_self_ns = node.host_ns - children_host;
    node.device_union_ns = TotalLength(MergeIntervals(std::move(device_intervals[n])));
  }
  return tree;
}

}  // namespace profdiff::analysis
