// The module tree diff (SEMANTICS.md §7): each side's worker trees merged by
// path (analysis/digest_module_tree.h; values are means over ranks), children
// of matched nodes aligned optimally (module_alignment.h) and recursed into,
// `(unknown)` blocks for time inside a node that none of its children covers.
#ifndef PROFDIFF_DIFFER_MODULE_DIFF_H_
#define PROFDIFF_DIFFER_MODULE_DIFF_H_

#include <string>

#include <absl/status/statusor.h>

#include "differ/noise.h"
#include "differ/side.h"
#include "differ/table_diff.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {

struct ModuleDiff {
  v1::ModuleDiffNode node;  // the root, or the node `path` names
  // What ran inside that node on each side, for scoped operator/kernel diffs
  // (only set when a path was given).
  OperatorTables operators[2] = {nullptr, nullptr};
  KernelTables kernels[2] = {nullptr, nullptr};
};

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
