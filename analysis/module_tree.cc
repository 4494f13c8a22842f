#include "analysis/module_tree.h"

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

namespace profdiff::analysis {
namespace module_tree_internal {
namespace {

using trace::EventKind;

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

}  // namespace

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

}  // namespace module_tree_internal

ModuleTree BuildModuleTree(const trace::Trace& trace, const EventLinks& links,
                           const std::vector<int32_t>* step_of_event,
                           const StepWindows* steps) {
  return module_tree_internal::TreeBuilder(trace, links, step_of_event, steps)
      .Build();
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
