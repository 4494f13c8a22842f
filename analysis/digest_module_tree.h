// Workers' module trees merged by path into one digest tree
// (v1::DigestModuleNode), as the differ compares them (docs/semantics.md §7): a
// node is the same path in every worker's tree, children in first-seen order
// (workers added by rank; where one worker has two children of one name, the
// later one counts), each metric reduced over the workers that have the node,
// and the node's time outside every child worked out per worker and slot. A
// node's operator and kernel rows are what ran inside it, reduced as the run's
// (analysis/digest_tables.h).
#ifndef PROFDIFF_ANALYSIS_DIGEST_MODULE_TREE_H_
#define PROFDIFF_ANALYSIS_DIGEST_MODULE_TREE_H_

#include <memory>

#include "profdiff/v1/digest.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::analysis {

// Metric positions in DigestModuleNode.metrics and .unknown.
enum DigestModuleMetric {
  kModuleCalls,
  kModuleHost,
  kModuleDevice,
  kModuleBackwardHost,
  kModuleBackwardDevice,
  kModuleMetrics
};

// Differences below this share of the parent's value are floating-point
// residue, not time: an unknown block that small is 0.
inline constexpr double kUnknownResidue = 1e-9;

class ModuleTreeReducer {
 public:
  // `node_tables`: false leaves out every node's operator and kernel rows
  // (analysis/module_node_tables.h reduces a node's when asked).
  explicit ModuleTreeReducer(bool node_tables = true);
  ~ModuleTreeReducer();
  ModuleTreeReducer(const ModuleTreeReducer&) = delete;
  ModuleTreeReducer& operator=(const ModuleTreeReducer&) = delete;

  // Adds one worker's tree (its root), which kept `kept_steps` steps.
  void Add(const v1::ModuleNode& root, int kept_steps);
  // The merged tree; `unknown` is kept on module, backward and root nodes
  // with children (a node without children has all its time outside them).
  v1::DigestModuleNode Finish();

 private:
  struct Node;
  std::unique_ptr<Node> root_;
  bool node_tables_;
};

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_DIGEST_MODULE_TREE_H_
