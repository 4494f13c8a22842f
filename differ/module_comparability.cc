#include "differ/module_comparability.h"

#include "base/str_cat.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

// At most this many names per side in a warning; the tree lists them all.
constexpr int kNamesShown = 4;

bool Incomparable(const v1::ModuleDiffNode& node) {
  bool removed = false, added = false;
  for (const v1::ModuleDiffNode& child : node.children()) {
    if (child.status() == v1::DIFF_STATUS_MATCHED) return false;
    removed |= child.status() == v1::DIFF_STATUS_REMOVED;
    added |= child.status() == v1::DIFF_STATUS_ADDED;
  }
  return removed && added;
}

void Visit(const v1::ModuleDiffNode& node,
           std::vector<const v1::ModuleDiffNode*>& out) {
  if (node.status() != v1::DIFF_STATUS_MATCHED) return;
  if (Incomparable(node)) {
    out.push_back(&node);
    return;
  }
  for (const v1::ModuleDiffNode& child : node.children()) Visit(child, out);
}

}  // namespace

std::vector<std::string> ChildNames(const v1::ModuleDiffNode& node,
                                    v1::DiffStatus status) {
  std::vector<std::string> names;
  for (const v1::ModuleDiffNode& child : node.children()) {
    if (child.status() != status) continue;
    names.push_back(status == v1::DIFF_STATUS_REMOVED ? child.baseline_name()
                    : status == v1::DIFF_STATUS_ADDED
                        ? child.experimental_name()
                        : child.name());
  }
  return names;
}

std::vector<const v1::ModuleDiffNode*> IncomparableNodes(
    const v1::ModuleDiffNode& root) {
  std::vector<const v1::ModuleDiffNode*> out;
  Visit(root, out);
  return out;
}

std::vector<std::string> IncomparableSubtreeWarnings(
    const v1::ModuleDiffNode& root) {
  std::vector<std::string> warnings;
  for (const v1::ModuleDiffNode* node : IncomparableNodes(root)) {
    const std::string where =
        node->path().empty() ? "the top level" : node->path();
    warnings.push_back(base::StrCat(
        "modules: below ", where, " nothing aligns (baseline ",
        NameList(ChildNames(*node, v1::DIFF_STATUS_REMOVED), kNamesShown),
        "; experimental ",
        NameList(ChildNames(*node, v1::DIFF_STATUS_ADDED), kNamesShown),
        "): only ", where, node->path().empty() ? "" : " and what is above it",
        " can be compared"));
  }
  return warnings;
}

}  // namespace profdiff::differ
