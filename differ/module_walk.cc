#include "differ/module_walk.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "differ/module_comparability.h"

namespace profdiff::differ {
namespace {

constexpr std::string_view kBackwardSuffix = ".backward";

// "A.backward/B.backward" -> "A/B".
std::string ForwardPath(std::string_view path) {
  std::string out;
  while (true) {
    const size_t slash = path.find('/');
    std::string_view name = path.substr(0, slash);
    if (name.ends_with(kBackwardSuffix))
      name.remove_suffix(kBackwardSuffix.size());
    out.append(name);
    if (slash == std::string_view::npos) return out;
    out.push_back('/');
    path.remove_prefix(slash + 1);
  }
}

double Delta(const v1::ModuleDiffNode* node) {
  return node == nullptr ? 0 : node->delta().compare_us();
}

bool SameSign(double a, double b) {
  return (a > 0 && b > 0) || (a < 0 && b < 0);
}

class Walker {
 public:
  Walker(const v1::ModuleDiffNode& root, const ChangeThreshold& threshold)
      : index_(root), threshold_(threshold) {
    for (const v1::ModuleDiffNode* node : IncomparableNodes(root))
      incomparable_.insert(node);
  }

  ModuleUnit UnitOf(const v1::ModuleDiffNode& node) const {
    ModuleUnit unit;
    unit.node = &node;
    unit.backward = index_.BackwardOf(node);
    unit.delta = Delta(unit.node) + Delta(unit.backward);
    unit.changed =
        NodeChanged(node, threshold_) ||
        (unit.backward != nullptr && NodeChanged(*unit.backward, threshold_));
    return unit;
  }

  // The units below `unit`: its node's children, each with its backward node;
  // the children of its backward node that belong to no such child.
  std::vector<ModuleUnit> ChildUnits(const ModuleUnit& unit) const {
    std::vector<ModuleUnit> units;
    absl::flat_hash_set<const v1::ModuleDiffNode*> folded;
    for (const v1::ModuleDiffNode& child : unit.node->children()) {
      const ModuleUnit u = UnitOf(child);
      if (u.backward != nullptr) folded.insert(u.backward);
      units.push_back(u);
    }
    std::erase_if(units,
                  [&](const ModuleUnit& u) { return folded.contains(u.node); });
    if (unit.backward != nullptr) {
      for (const v1::ModuleDiffNode& child : unit.backward->children()) {
        if (!folded.contains(&child)) units.push_back(UnitOf(child));
      }
    }
    return units;
  }

  bool WalksInto(const ModuleUnit& unit) const {
    const v1::ModuleDiffNode& node = *unit.node;
    return node.status() == v1::DIFF_STATUS_MATCHED &&
           node.kind() != v1::MODULE_NODE_KIND_UNKNOWN &&
           !incomparable_.contains(&node) &&
           (unit.backward == nullptr || !incomparable_.contains(unit.backward));
  }

 private:
  BackwardIndex index_;
  const ChangeThreshold& threshold_;
  absl::flat_hash_set<const v1::ModuleDiffNode*> incomparable_;
};

}  // namespace

BackwardIndex::BackwardIndex(const v1::ModuleDiffNode& root) {
  std::vector<const v1::ModuleDiffNode*> stack = {&root};
  while (!stack.empty()) {
    const v1::ModuleDiffNode* node = stack.back();
    stack.pop_back();
    if (node->kind() == v1::MODULE_NODE_KIND_BACKWARD)
      backward_.try_emplace(ForwardPath(node->path()), node);
    if (node->kind() == v1::MODULE_NODE_KIND_MODULE)
      modules_.insert(node->path());
    for (const v1::ModuleDiffNode& child : node->children())
      stack.push_back(&child);
  }
}

const v1::ModuleDiffNode* BackwardIndex::BackwardOf(
    const v1::ModuleDiffNode& node) const {
  if (node.kind() != v1::MODULE_NODE_KIND_MODULE) return nullptr;
  const auto it = backward_.find(node.path());
  return it == backward_.end() ? nullptr : it->second;
}

bool BackwardIndex::IsBackwardOfModule(const v1::ModuleDiffNode& node) const {
  return node.kind() == v1::MODULE_NODE_KIND_BACKWARD &&
         modules_.contains(ForwardPath(node.path()));
}

bool NodeChanged(const v1::ModuleDiffNode& node,
                 const ChangeThreshold& threshold) {
  if (node.noise().has_interval()) return node.noise().significant();
  const double delta = node.delta().compare_us();
  return delta != 0 &&
         LargeEnough(delta, node.baseline().compare_us(), threshold);
}

ModuleWalk WalkModules(const v1::ModuleDiffNode& root,
                       const ChangeThreshold& threshold) {
  const Walker walker(root, threshold);
  ModuleWalk walk;
  walk.where = walker.UnitOf(root);
  walk.where.delta = Delta(&root);  // the root has no backward node
  while (walk.where.delta != 0 && walker.WalksInto(walk.where)) {
    std::vector<ModuleUnit> units = walker.ChildUnits(walk.where);
    std::erase_if(units, [&](const ModuleUnit& u) {
      return !u.changed || !SameSign(u.delta, walk.where.delta);
    });
    std::stable_sort(units.begin(), units.end(),
                     [](const ModuleUnit& x, const ModuleUnit& y) {
                       return std::abs(x.delta) > std::abs(y.delta);
                     });
    if (units.empty()) break;
    // Sub-modules that ran on one side only and hold most of the change are
    // the explanation: the walk stops at their parent.
    double one_sided = 0;
    for (const ModuleUnit& u : units) {
      if (u.node->status() == v1::DIFF_STATUS_ADDED ||
          u.node->status() == v1::DIFF_STATUS_REMOVED)
        one_sided += u.delta;
    }
    if (std::abs(one_sided) >= kWalkShare * std::abs(walk.where.delta)) break;
    if (std::abs(units.front().delta) <
        kWalkShare * std::abs(walk.where.delta)) {
      walk.spread = std::move(units);
      break;
    }
    walk.where = units.front();
    walk.descended = true;
  }
  return walk;
}

}  // namespace profdiff::differ
