// How BuildModuleTree (module_tree.h) builds a tree: internal to the
// analysis, in three files:
//   module_tree.cc           which events are nodes (the source of the tree)
//   module_tree_builder.cc   TreeBuilder: nesting, placing forward modules,
//                            device time and operators, the finished tree
//   module_tree_backward.cc  TreeBuilder's backward pass, optimizer and
//                            gradient sync nodes (design notes 1 and 5)
#ifndef PROFDIFF_ANALYSIS_MODULE_TREE_BUILDER_H_
#define PROFDIFF_ANALYSIS_MODULE_TREE_BUILDER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "analysis/backward_links.h"
#include "analysis/module_tree.h"
#include "analysis/step_breakdown.h"

namespace profdiff::analysis::module_tree_internal {

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

// Whether `name`, a user_annotation's, is the user's own structure (not a
// range the profiler or torch records around every call).
bool IsUserStructure(std::string_view name);

// Node events and where they came from, by docs/semantics.md §7's order of
// preference; the user's annotations join any source (design note 1).
std::vector<uint32_t> SelectNodeEvents(const trace::Trace& trace,
                                       const EventLinks& links,
                                       ModuleTreeSource* source);

// A node's name: the event's, without "nn.Module: ".
std::string NodeName(std::string_view event_name);

// Why a trace's tree has no backward nodes (empty when it has some).
std::string NotAttributedReason(ModuleTreeSource source,
                                const BackwardLinks& links);

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

  ModuleTree Build();

 private:
  // --- nesting, forward modules, device time and operators
  //     (module_tree_builder.cc)
  int32_t StepOf(uint32_t e) const;
  bool IsUserAnnotation(uint32_t e) const;
  uint32_t AddNode(uint32_t parent, std::string name, ModuleNodeKind kind,
                   bool other = false);
  uint32_t ChildNamedAs(uint32_t parent, uint32_t e, ModuleNodeKind kind);
  void AddCalls(uint32_t node, uint32_t e, int32_t calls);
  void AddHost(uint32_t node, uint32_t e, int64_t host_ns);
  uint32_t EnclosingNode(uint32_t e) const;
  void PlaceModule(uint32_t e);
  void AttributeDeviceAndOperators();
  void Finish();

  // --- backward, optimizer and gradient sync (module_tree_backward.cc)
  void SummarizeBackwardLinks();
  void AddStepContainers(std::vector<uint32_t>& containers);
  uint32_t BackwardNodeOf(uint32_t module);
  void PlaceBackwardRoot(uint32_t e);
  void PlaceOptimizer(uint32_t e);
  uint32_t GradientSyncNode();
  void PlaceSync(uint32_t e);
  void AddExposedSync(const std::vector<uint32_t>& containers);
  void NameGradientSync();
  void SumBackwardNodes();

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

}  // namespace profdiff::analysis::module_tree_internal

#endif  // PROFDIFF_ANALYSIS_MODULE_TREE_BUILDER_H_
