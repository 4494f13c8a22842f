#include "analysis/module_tree.h"

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

namespace profdiff::analysis {
namespace {

using trace::EventKind;

constexpr std::string_view kModulePrefix = "nn.Module: ";
constexpr std::string_view kOptimizerPrefix = "Optimizer.";
constexpr std::string_view kBackwardSuffix = ".backward";
constexpr std::string_view kGradientSyncSuffix = ".gradient_sync";
constexpr std::string_view kCollectivesName = "(collectives)";
// Wrappers whose collectives outside the forward pass are the gradient sync.
constexpr std::string_view kDataParallelPrefixes[] = {
    "DistributedDataParallel_", "FullyShardedDataParallel_"};

// What a container event stands for in the tree (design notes 1 and 5).
enum class Role : uint8_t { kNone, kModule, kBackwardRoot, kOptimizer, kSync };

// Ranges the profiler or torch itself records around every call (design note
// 1): they keep their own meaning (steps, data loading, the optimizer and
// collectives the step's nodes count) or add a level above what they wrap
// (the DDP and FSDP forward around the wrapped module, a compiled graph's
// call, whose name is a cache key that differs between runs).
constexpr std::string_view kFrameworkAnnotationPrefixes[] = {
    "ProfilerStep#",
    "enumerate(DataLoader)",
    "DataLoader",
    "Optimizer.",
    "DistributedDataParallel.",
    "FullyShardedDataParallel.",
    "## Call CompiledFxGraph",
    "Torch-Compiled Region",
    "CompiledFunction",
    "hccl:",
    "ucc:",
    "mpi:",
    "xccl:",
    "rccl:",
    "PyTorch Profiler",
};

// Whether `name`, a user_annotation's, is the user's own structure.
bool IsUserStructure(std::string_view name) {
  if (name.empty() || name.starts_with(kModulePrefix) ||
      IsCollectiveOpName(name))
    return false;
  for (std::string_view prefix : kFrameworkAnnotationPrefixes) {
    if (name.starts_with(prefix)) return false;
  }
  return true;
}

// Node events and where they came from, by docs/semantics.md §7's order of
// preference; the user's annotations join any source (design note 1).
std::vector<uint32_t> SelectNodeEvents(const trace::Trace& trace,
                                       const EventLinks& links,
                                       ModuleTreeSource* source) {
  const trace::EventTable& t = trace.events;
  std::vector<uint32_t> modules;
  std::vector<uint32_t> annotations;
  std::vector<uint32_t> user;
  for (uint32_t i = 0; i < t.size(); ++i) {
    if (t.phase[i] != trace::EventPhase::kComplete) continue;
    if (t.kind[i] == EventKind::kModule) {
      modules.push_back(i);
    } else if (t.kind[i] == EventKind::kUserAnnotation) {
      const std::string_view name = trace.strings.Get(t.name[i]);
      if (name.starts_with(kModulePrefix)) {
        annotations.push_back(i);
      } else if (IsUserStructure(name)) {
        user.push_back(i);
      }
    }
  }
  std::vector<uint32_t> nodes;
  if (!modules.empty()) {
    *source = ModuleTreeSource::kPythonModules;
    nodes = std::move(modules);
  } else if (!annotations.empty()) {
    *source = ModuleTreeSource::kAnnotations;
    nodes = std::move(annotations);
  } else if (!user.empty()) {
    *source = ModuleTreeSource::kUserAnnotations;
    nodes = links.operators;
  } else {
    *source = ModuleTreeSource::kOperators;
    return links.operators;
  }
  nodes.insert(nodes.end(), user.begin(), user.end());
  return nodes;
}

std::string NodeName(std::string_view event_name) {
  if (event_name.starts_with(kModulePrefix))
    event_name.remove_prefix(kModulePrefix.size());
  return std::string(event_name);
}

// Why a trace's tree has no backward nodes (empty when it has some).
std::string NotAttributedReason(ModuleTreeSource source,
                                const BackwardLinks& links) {
  if (source == ModuleTreeSource::kOperators) {
    return "the trace has no nn.Module events, so backward is not attributed "
           "to modules";
  }
  if (source == ModuleTreeSource::kUserAnnotations) {
    return "the trace has no nn.Module events (its tree is record_function "
           "ranges over operators), so backward is not attributed to them";
  }
  if (links.roots.empty())
    return "the trace has no backward pass (no "
           "autograd::engine::evaluate_function ops)";
  if (links.linked() > 0) return "";
  if (!links.has_flows && !links.has_sequence_numbers) {
    return "the trace links no backward op to its forward op (no fwdbwd flows, "
           "no \"Sequence number\" "
           "and \"Fwd thread id\" arguments)";
  }
  return base::StrCat("none of the ",
                      links.roots.size() - links.accumulate_grad_roots,
                      " backward roots matched a forward op");
}

class TreeBuilder {
 public:
  TreeBuilder(const trace::Trace& trace, const EventLinks& links,
              const std::vector<int32_t>* step_of_event,
              const StepWindows* steps)
      : trace_(trace),
        t_(trace.events),
        links_(links),
        step_of_event_(step_of_event),
        steps_(steps) {}

  ModuleTree Build() {
    std::vector<uint32_t> containers =
        SelectNodeEvents(trace_, links_, &tree_.source);
    const bool nodes_are_operators =
        tree_.source == ModuleTreeSource::kOperators ||
        tree_.source == ModuleTreeSource::kUserAnnotations;
    module_kind_ = nodes_are_operators ? ModuleNodeKind::kOperator
                                       : ModuleNodeKind::kModule;
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

 private:
  int32_t StepOf(uint32_t e) const {
    return step_of_event_ != nullptr ? (*step_of_event_)[e] : kNoStep;
  }

  void SummarizeBackwardLinks() {
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
  void AddStepContainers(std::vector<uint32_t>& containers) {
    for (uint32_t root : backward_.roots) {
      if (role_[root] != Role::kNone) continue;
      role_[root] = Role::kBackwardRoot;
      containers.push_back(root);
    }
    for (uint32_t i = 0; i < t_.size(); ++i) {
      if (role_[i] != Role::kNone ||
          t_.phase[i] != trace::EventPhase::kComplete)
        continue;
      if (t_.kind[i] != EventKind::kCpuOp &&
          t_.kind[i] != EventKind::kUserAnnotation)
        continue;
      const std::string_view name = trace_.strings.Get(t_.name[i]);
      if (name.starts_with(kOptimizerPrefix)) {
        role_[i] = Role::kOptimizer;
      } else if (IsCollectiveOpName(
                     name)) {  // as the step breakdown counts them
        role_[i] = Role::kSync;
      } else {
        continue;
      }
      containers.push_back(i);
    }
  }

  // A user annotation's node (design note 1), beside modules or operators.
  bool IsUserAnnotation(uint32_t e) const {
    return t_.kind[e] == EventKind::kUserAnnotation &&
           IsUserStructure(trace_.strings.Get(t_.name[e]));
  }

  uint32_t AddNode(uint32_t parent, std::string name, ModuleNodeKind kind,
                   bool other = false) {
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
  uint32_t ChildNamedAs(uint32_t parent, uint32_t e, ModuleNodeKind kind) {
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

  void AddCalls(uint32_t node, uint32_t e, int32_t calls) {
    tree_.nodes[node].calls += calls;
    if (const int32_t step = StepOf(e); step != kNoStep)
      SampleOfStep(tree_.nodes[node].steps, step).calls += calls;
  }
  void AddHost(uint32_t node, uint32_t e, int64_t host_ns) {
    tree_.nodes[node].host_ns += host_ns;
    if (const int32_t step = StepOf(e); step != kNoStep)
      SampleOfStep(tree_.nodes[node].steps, step).host_ns += host_ns;
  }

  // The node of the container around `e`, or kNoEvent (top level, or a root
  // left unattributed).
  uint32_t EnclosingNode(uint32_t e) const {
    const uint32_t parent = event_parent_[e];
    return parent == kNoEvent ? kNoEvent : node_of_event_[parent];
  }

  void PlaceModule(uint32_t e) {
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
        parent, e,
        IsUserAnnotation(e) ? ModuleNodeKind::kModule : module_kind_);
    node_of_event_[e] = node;
    AddCalls(node, e, 1);
    AddHost(node, e, t_.duration_ns[e]);
  }

  // The ".backward" node of forward module `module`, made with its ancestors'
  // when new (one per parent and name); or the nearest backward node above it
  // (kNoEvent: none) past the limits.
  uint32_t BackwardNodeOf(uint32_t module) {
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
      std::string name =
          tree_.nodes[module].name + std::string(kBackwardSuffix);
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

  void PlaceBackwardRoot(uint32_t e) {
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

  void PlaceOptimizer(uint32_t e) {
    if (event_parent_[e] != kNoEvent) {
      node_of_event_[e] = EnclosingNode(e);
      return;
    }
    const uint32_t node = ChildNamedAs(0, e, ModuleNodeKind::kOptimizer);
    node_of_event_[e] = node;
    AddCalls(node, e, 1);
    AddHost(node, e, t_.duration_ns[e]);
  }

  uint32_t GradientSyncNode() {
    if (sync_node_ == kNoEvent)
      sync_node_ = AddNode(0, std::string(kCollectivesName),
                           ModuleNodeKind::kGradientSync);
    return sync_node_;
  }

  void PlaceSync(uint32_t e) {
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
  void AddExposedSync(const std::vector<uint32_t>& containers) {
    if (top_level_sync_.empty()) return;
    absl::flat_hash_set<std::pair<int64_t, int64_t>> model_threads;
    std::vector<Interval> busy;
    for (uint32_t e : containers) {
      if (role_[e] == Role::kSync || event_parent_[e] != kNoEvent) continue;
      model_threads.insert(std::pair(t_.pid[e], t_.tid[e]));
      busy.push_back({t_.start_ns[e], t_.end_ns(e)});
    }
    for (uint32_t op : links_.operators) {
      if (links_.op_parent[op] != kNoEvent || role_[op] == Role::kSync)
        continue;
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
  void NameGradientSync() {
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
  void SumBackwardNodes() {
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

  // Device activity and operators reach their node and, inclusively, every
  // ancestor.
  void AttributeDeviceAndOperators() {
    device_intervals_.resize(tree_.nodes.size());
    for (uint32_t d : links_.device_activities) {
      const uint32_t runtime = links_.device_runtime[d];
      if (runtime == kNoEvent || leaf_node_event_[runtime] == kNoEvent)
        continue;
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

  void Finish() {
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

  const trace::Trace& trace_;
  const trace::EventTable& t_;
  const EventLinks& links_;
  const std::vector<int32_t>* step_of_event_;
  const StepWindows* steps_;
  ModuleTree tree_;
  ModuleNodeKind module_kind_ = ModuleNodeKind::kModule;
  BackwardLinks backward_;
  std::vector<Role> role_;  // by event
  std::vector<uint32_t>
      event_parent_;  // by event: the container around a container
  std::vector<uint32_t>
      leaf_node_event_;  // by event: the container around a runtime call or op
  std::vector<uint32_t>
      node_of_event_;           // by event: a container's node (kNoEvent: none)
  std::vector<int32_t> depth_;  // by node
  std::vector<bool> is_other_;  // by node
  absl::flat_hash_map<uint64_t, uint32_t>
      child_by_name_;  // parent node << 32 | name id
  absl::flat_hash_map<uint64_t, uint32_t>
      other_child_;  // parent node << 8 | kind -> "(other)"
  absl::flat_hash_map<std::pair<uint32_t, std::string>, uint32_t>
      backward_child_;                         // (parent, name)
  std::vector<bool> in_forward_or_optimizer_;  // by container: inside a forward
                                               // module or optimizer
  absl::flat_hash_map<uint32_t, uint32_t>
      backward_of_;  // forward module -> backward node
  absl::flat_hash_map<uint32_t, uint32_t> forward_of_backward_;
  absl::flat_hash_map<std::pair<int64_t, int64_t>, uint32_t>
      last_root_node_;  // by (pid, tid)
  uint32_t sync_node_ = kNoEvent;
  std::vector<uint32_t> top_level_sync_;  // collectives outside every container
  std::vector<std::vector<Interval>> device_intervals_;  // by node
};

}  // namespace

ModuleTree BuildModuleTree(const trace::Trace& trace, const EventLinks& links,
                           const std::vector<int32_t>* step_of_event,
                           const StepWindows* steps) {
  return TreeBuilder(trace, links, step_of_event, steps).Build();
}

v1::ModuleNodeKind ProtoModuleNodeKind(ModuleNodeKind kind) {
  switch (kind) {
    case ModuleNodeKind::kRoot:
      return v1::MODULE_NODE_KIND_ROOT;
    case ModuleNodeKind::kModule:
      return v1::MODULE_NODE_KIND_MODULE;
    case ModuleNodeKind::kOperator:
      return v1::MODULE_NODE_KIND_OPERATOR;
    case ModuleNodeKind::kBackward:
      return v1::MODULE_NODE_KIND_BACKWARD;
    case ModuleNodeKind::kOptimizer:
      return v1::MODULE_NODE_KIND_OPTIMIZER;
    case ModuleNodeKind::kGradientSync:
      return v1::MODULE_NODE_KIND_GRADIENT_SYNC;
  }
  return v1::MODULE_NODE_KIND_UNSPECIFIED;
}

}  // namespace profdiff::analysis
