// A worker's module-node operator and kernel tables, made for the nodes a diff
// reads rather than for every node as its profile is built. A diff of two
// traces reads the tables of a node or two of hundreds (a --path, the modules
// its findings look inside: ModuleNodeTables), and making every node's was two
// fifths of the xDiT pair's profile builds.
//
// Design:
// 1. What BuildWorkerProfile worked the tables out from (the trace, its links,
//    operator times, steps and module tree) is kept here instead of the
//    tables; a node's are made when asked, by the same function the eager
//    build runs (FillModuleNodeTables), so they are the same rows.
// 2. Deferring never changes a profile's tables: a profile whose tables could
//    take it past kMaxProfileBytes (the rule that clears every node's) has its
//    tables made at once (BuildWorkerProfile's bound).
// 3. The loader defers only where each loading thread reads one worker (a
//    diff of two traces): there the profile build is on the diff's critical
//    path. A thread that reads several would keep each trace instead of
//    reusing its memory for the next, and a diff of two 1,024-rank folders ran
//    ~10% slower and 0.2-0.8 GB larger. It keeps traces up to a budget of
//    events (kMaxDeferredEvents); workers past it are built as before.
#ifndef PROFDIFF_ANALYSIS_DEFERRED_NODE_TABLES_H_
#define PROFDIFF_ANALYSIS_DEFERRED_NODE_TABLES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/synchronization/mutex.h>

#include "analysis/event_links.h"
#include "analysis/module_node_rows.h"
#include "analysis/module_tree.h"
#include "analysis/operator_view.h"
#include "profdiff/v1/profile.pb.h"
#include "trace/trace.h"

namespace profdiff::analysis {

// The events of the traces a load keeps for deferred tables, at most.
inline constexpr int64_t kMaxDeferredEvents = 4'000'000;

class DeferredNodeTables {
 public:
  DeferredNodeTables(std::shared_ptr<const trace::Trace> trace,
                     EventLinks links, OperatorTimes times,
                     std::vector<int32_t> step_of_event, ModuleTree tree);
  DeferredNodeTables(const DeferredNodeTables&) = delete;
  DeferredNodeTables& operator=(const DeferredNodeTables&) = delete;

  // Fills `out`'s operators and kernels as the eager build fills the node at
  // `names` (from the root down; of two children of one name, the later, as a
  // digest's tree takes it). False when the tree has no such node below the
  // root. Safe to call from several threads.
  bool Fill(const std::vector<const std::string*>& names,
            v1::ModuleNode& out) const ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  const std::shared_ptr<const trace::Trace> trace_;
  const EventLinks links_;
  const OperatorTimes times_;
  const std::vector<int32_t> step_of_event_;
  const ModuleTree tree_;
  mutable absl::Mutex mutex_;
  // Refers to the members above.
  mutable ModuleNodeRows rows_ ABSL_GUARDED_BY(mutex_);
};

// A run's deferred tables, by worker rank (a run has each rank once).
using DeferredRunTables =
    absl::flat_hash_map<int32_t, std::unique_ptr<DeferredNodeTables>>;

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_DEFERRED_NODE_TABLES_H_
