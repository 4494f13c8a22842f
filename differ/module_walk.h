// Where in the module tree a step's change is (README "What changed"): a walk
// from the root along the child that holds most of its parent's change, until
// the change spreads over several children or the walk reaches a leaf.
//
// The walk goes over modules, not tree nodes: a forward module and its
// <module>.backward node are one unit (their deltas add up), since "layer3 got
// slower" is about both passes, and the backward tree mirrors the forward one.
#ifndef PROFDIFF_DIFFER_MODULE_WALK_H_
#define PROFDIFF_DIFFER_MODULE_WALK_H_

#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "differ/noise.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {

// A module node with its backward node (nullptr when it has none).
struct ModuleUnit {
  const v1::ModuleDiffNode* node = nullptr;
  const v1::ModuleDiffNode* backward = nullptr;
  double delta = 0;  // compare_us delta of the node plus that of its backward
  bool changed = false;  // either part's change passed the noise and thresholds
};

struct ModuleWalk {
  ModuleUnit where;  // the root's unit when the walk did not descend
  bool descended = false;
  // The changed child units of `where`, largest |delta| first, when the change
  // spreads over them (empty when the walk stopped at a leaf).
  std::vector<ModuleUnit> spread;
};

// A child must hold at least this share of its parent's change (same sign) to
// be walked into.
inline constexpr double kWalkShare = 0.5;

// Whether a node's change counts: its noise interval says so, or with fewer
// than two steps a side (no interval) the thresholds alone (change_class.h's
// rule for tables).
bool NodeChanged(const v1::ModuleDiffNode& node,
                 const ChangeThreshold& threshold);

// Walks from `root`; never into an added, removed or `(unknown)` node, nor
// below a node whose sub-modules do not align (module_comparability.h); stops
// at a node whose added and removed sub-modules hold kWalkShare of its change.
ModuleWalk WalkModules(const v1::ModuleDiffNode& root,
                       const ChangeThreshold& threshold);

// The <module>.backward node of each forward module of a tree: the backward
// node whose path, with ".backward" taken off each name, is the module's path.
class BackwardIndex {
 public:
  explicit BackwardIndex(const v1::ModuleDiffNode& root);
  // nullptr when `node` is not a module or has no backward node.
  const v1::ModuleDiffNode* BackwardOf(const v1::ModuleDiffNode& node) const;
  // Whether `node` is the backward node of a module.
  bool IsBackwardOfModule(const v1::ModuleDiffNode& node) const;

 private:
  absl::flat_hash_map<std::string, const v1::ModuleDiffNode*> backward_;
  absl::flat_hash_set<std::string> modules_;
};

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_MODULE_WALK_H_
