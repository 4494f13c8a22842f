// The operator and kernel rows of a digest's module nodes, reduced from the
// run's profiles when first asked for: for a digest made without them
// (DigestOptions::node_tables), a node's rows here are the ones
// ModuleTreeReducer would have put in it. A diff of two traces reads the rows
// of a few nodes (a --path, the modules its findings look inside), and
// reducing every node's was most of making its digests.
//
// Design:
// 1. A digest node is a path of names from the root (children are merged by
//    name), so its rows are each worker's node at that path (the later of two
//    children of one name, as the tree takes it) added in the digest's worker
//    order: the same sums in the same order as the eager reduction.
// 2. Rows are kept once reduced, so a node asked for twice is reduced once and
//    its rows stay where they are while this object lives.
#ifndef PROFDIFF_ANALYSIS_MODULE_NODE_TABLES_H_
#define PROFDIFF_ANALYSIS_MODULE_NODE_TABLES_H_

#include <cstdint>
#include <memory>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/synchronization/mutex.h>

#include "analysis/deferred_node_tables.h"
#include "profdiff/v1/digest.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::analysis {

class ModuleNodeTables {
 public:
  // `run` and `digest` (DigestOfRun of `run`, made without node tables) must
  // outlive this object; the workers reduced are the digest's ranks. A worker
  // whose rank `deferred` holds has its nodes' tables made there (its profile
  // has none); `deferred` must outlive this object too.
  ModuleNodeTables(const v1::RunProfile& run, const v1::RunDigest& digest,
                   const DeferredRunTables* deferred = nullptr);
  ~ModuleNodeTables();
  ModuleNodeTables(const ModuleNodeTables&) = delete;
  ModuleNodeTables& operator=(const ModuleNodeTables&) = delete;

  // A node holding only `node`'s operator and kernel rows; `node` itself when
  // it is no node of `root`'s tree. Safe to call from several threads.
  const v1::DigestModuleNode& Of(const v1::DigestModuleNode& node) const;

 private:
  std::unique_ptr<v1::DigestModuleNode> Reduce(
      const v1::DigestModuleNode& node) const;

  std::vector<const v1::WorkerProfile*> workers_;  // reduced, by rank
  const DeferredRunTables* deferred_;
  // Each node's parent (the root's is nullptr).
  absl::flat_hash_map<const v1::DigestModuleNode*, const v1::DigestModuleNode*>
      parents_;
  mutable absl::Mutex mutex_;
  mutable absl::flat_hash_map<const v1::DigestModuleNode*,
                              std::unique_ptr<v1::DigestModuleNode>>
      reduced_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_MODULE_NODE_TABLES_H_
