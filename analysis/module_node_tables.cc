#include "analysis/module_node_tables.h"

#include <algorithm>
#include <string>
#include <utility>

#include "analysis/digest_module_tree.h"
#include "analysis/digest_tables.h"
#include "analysis/run_digest.h"

namespace profdiff::analysis {
namespace {

// The node a worker's tree has at `names` (from the root down), taking the
// later of two children of one name as the digest tree does; nullptr when it
// has none.
const v1::ModuleNode* NodeAtNames(
    const v1::ModuleNode& root, const std::vector<const std::string*>& names) {
  const v1::ModuleNode* node = &root;
  for (const std::string* name : names) {
    const v1::ModuleNode* last = nullptr;
    for (const v1::ModuleNode& child : node->children()) {
      if (child.name() == *name) last = &child;
    }
    if (last == nullptr) return nullptr;
    node = last;
  }
  return node;
}

}  // namespace

ModuleNodeTables::ModuleNodeTables(const v1::RunProfile& run,
                                   const v1::RunDigest& digest,
                                   const DeferredRunTables* deferred)
    : deferred_(deferred) {
  // The digest lists the ranks it reduced, ascending.
  for (const v1::WorkerProfile* w : WorkersByRank(run)) {
    if (std::binary_search(digest.ranks().begin(), digest.ranks().end(),
                           w->worker().rank()))
      workers_.push_back(w);
  }
  const v1::DigestModuleNode& root = digest.modules();
  std::vector<const v1::DigestModuleNode*> stack = {&root};
  parents_[&root] = nullptr;
  while (!stack.empty()) {
    const v1::DigestModuleNode* node = stack.back();
    stack.pop_back();
    for (const v1::DigestModuleNode& child : node->children()) {
      parents_[&child] = node;
      stack.push_back(&child);
    }
  }
}

ModuleNodeTables::~ModuleNodeTables() = default;

const v1::DigestModuleNode& ModuleNodeTables::Of(
    const v1::DigestModuleNode& node) const {
  if (!parents_.contains(&node)) return node;
  absl::MutexLock lock(&mutex_);
  std::unique_ptr<v1::DigestModuleNode>& tables = reduced_[&node];
  if (tables == nullptr) tables = Reduce(node);
  return *tables;
}

std::unique_ptr<v1::DigestModuleNode> ModuleNodeTables::Reduce(
    const v1::DigestModuleNode& node) const {
  std::vector<const std::string*> names;
  for (const v1::DigestModuleNode* n = &node; parents_.at(n) != nullptr;
       n = parents_.at(n)) {
    names.push_back(&n->name());
  }
  std::reverse(names.begin(), names.end());
  auto tables = std::make_unique<v1::DigestModuleNode>();
  RowIndex operators;
  RowIndex kernels;
  v1::ModuleNode made;  // a deferred worker's node tables
  for (const v1::WorkerProfile* w : workers_) {
    const DeferredNodeTables* source = nullptr;
    if (deferred_ != nullptr) {
      const auto it = deferred_->find(w->worker().rank());
      if (it != deferred_->end()) source = it->second.get();
    }
    const v1::ModuleNode* at = nullptr;
    if (source != nullptr) {
      made.Clear();
      if (source->Fill(names, made)) at = &made;
    } else {
      at = NodeAtNames(w->modules(), names);
    }
    if (at == nullptr) continue;
    AddOperatorRows(at->operators(), w->steps_size(), operators,
                    *tables->mutable_operators());
    AddKernelRows(at->kernels(), w->steps_size(), kernels,
                  *tables->mutable_kernels());
  }
  return tables;
}

}  // namespace profdiff::analysis
