#include "client/module_table_rows.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace profdiff::client {
namespace {

using Parents = std::map<const v1::ModuleDiffNode*, const v1::ModuleDiffNode*>;

// Every node to `max_depth`, in tree order, with its parent.
void Walk(const v1::ModuleDiffNode& node, const v1::ModuleDiffNode* parent,
          int depth, int max_depth,
          std::vector<const v1::ModuleDiffNode*>& nodes, Parents& parents) {
  nodes.push_back(&node);
  parents[&node] = parent;
  if (depth >= max_depth) return;
  for (const v1::ModuleDiffNode& child : node.children())
    Walk(child, &node, depth + 1, max_depth, nodes, parents);
}

std::set<const v1::ModuleDiffNode*> WithAncestors(
    const v1::ModuleDiffNode& root,
    const std::vector<const v1::ModuleDiffNode*>& keep,
    const Parents& parents) {
  std::set<const v1::ModuleDiffNode*> out = {&root};
  for (const v1::ModuleDiffNode* n : keep) {
    while (n != nullptr && out.insert(n).second) n = parents.at(n);
  }
  return out;
}

}  // namespace

ModuleTableRows SelectModuleTableRows(const v1::ModuleDiffNode& root,
                                      int max_depth,
                                      const base::NameFilter& filter, int top) {
  std::vector<const v1::ModuleDiffNode*> nodes;
  Parents parents;
  Walk(root, nullptr, 0, max_depth, nodes, parents);
  std::vector<const v1::ModuleDiffNode*> matched;
  for (const v1::ModuleDiffNode* node : nodes) {
    if (node != &root && filter.Matches(node->name())) matched.push_back(node);
  }
  ModuleTableRows rows;
  rows.shown = WithAncestors(root, matched, parents);
  if (top <= 0 || static_cast<int>(rows.shown.size()) <= top + 1) return rows;
  std::stable_sort(
      matched.begin(), matched.end(),
      [](const v1::ModuleDiffNode* a, const v1::ModuleDiffNode* b) {
        return std::abs(a->delta().compare_us()) >
               std::abs(b->delta().compare_us());
      });
  if (matched.size() > static_cast<size_t>(top))
    matched.resize(static_cast<size_t>(top));
  const size_t before = rows.shown.size();
  rows.shown = WithAncestors(root, matched, parents);
  rows.hidden = static_cast<int>(before - rows.shown.size());
  return rows;
}

}  // namespace profdiff::client
