// The module tree diff (docs/semantics.md §7): each side's worker trees merged
// by path (analysis/digest_module_tree.h; values are means over ranks),
// children of matched nodes aligned optimally (module_alignment.h) and recursed
// into, `(unknown)` blocks for time inside a node that none of its children
// covers.
#ifndef PROFDIFF_DIFFER_MODULE_DIFF_H_
#define PROFDIFF_DIFFER_MODULE_DIFF_H_

#include <string>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>

#include "differ/noise.h"
#include "differ/side.h"
#include "differ/table_diff.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {

// Both sides' digest node (nullptr where a side lacks it) under each index
// path of a tree diff.
using NodeSides =
    absl::flat_hash_map<std::string, std::pair<const v1::DigestModuleNode*,
                                               const v1::DigestModuleNode*>>;

struct ModuleDiff {
  v1::ModuleDiffNode node;  // the root, or the node `path` names
  // What ran inside that node on each side, for scoped operator/kernel diffs
  // (only set when a path was given).
  OperatorTables operators[2] = {nullptr, nullptr};
  KernelTables kernels[2] = {nullptr, nullptr};
  // Every node of the whole tree, so the tables inside any node need no
  // second diff of the tree (findings look inside each top-level module).
  NodeSides sides;
};

// What ran inside the node at `index_path` on each side (`a`, `b`, whose trees
// `sides` indexes); nullptr for a side that lacks the node and for nodes the
// diff made up (`(unknown)` blocks).
void TablesInside(const Side& a, const Side& b, const NodeSides& sides,
                  const std::string& index_path, OperatorTables operators[2],
                  KernelTables kernels[2]);

// `path` is "" (the root), child indices ("0/3/1") or node names
// ("ResNet/layer3/Bottleneck_2", either side's names or class names); an
// unknown path is NOT_FOUND naming what exists there. `node_tables`: every node
// below the root carries its own operator and kernel diffs.
absl::StatusOr<ModuleDiff> DiffModules(const Side& a, const Side& b,
                                       const std::string& path,
                                       const ChangeThreshold& threshold,
                                       bool node_tables = false);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_MODULE_DIFF_H_
