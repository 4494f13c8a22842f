// Builds a worker's profile (protos/profdiff/v1/profile.proto) from its trace:
// steps and their breakdown, GPU metrics, operator and kernel views, module
// tree, memory and communication.
#ifndef PROFDIFF_ANALYSIS_WORKER_PROFILE_H_
#define PROFDIFF_ANALYSIS_WORKER_PROFILE_H_

#include <memory>
#include <string>

#include "analysis/kernel_view.h"
#include "analysis/operator_view.h"
#include "profdiff/v1/profile.pb.h"
#include "trace/trace.h"

namespace profdiff::analysis {

struct ProfileOptions {
  OperatorGrouping operator_grouping = OperatorGrouping::kName;
  KernelGrouping kernel_grouping = KernelGrouping::kName;
  bool module_tables = true;  // per-node operator and kernel tables
  // 2 or more: the step, GPU, memory, operator and kernel views are built on a
  // second thread while this one builds the module tree. The profile is the
  // same either way.
  int threads = 1;
};

// The groupings of every module node's operator and kernel tables, whatever
// ProfileOptions asks of the whole-run tables (`--path` and the HTML page read
// them): kernels by launching op are what the findings' replacements read
// (differ/findings/replacements.h).
inline constexpr OperatorGrouping kModuleNodeOperatorGrouping =
    OperatorGrouping::kName;
inline constexpr KernelGrouping kModuleNodeKernelGrouping =
    KernelGrouping::kNameAndOp;

// A grouping as profiles and digests name it.
constexpr v1::Grouping GroupingOf(OperatorGrouping grouping) {
  return grouping == OperatorGrouping::kNameAndShape
             ? v1::GROUPING_NAME_AND_SHAPE
             : v1::GROUPING_NAME;
}
constexpr v1::Grouping GroupingOf(KernelGrouping grouping) {
  return grouping == KernelGrouping::kNameAndOp ? v1::GROUPING_NAME_AND_OP
                                                : v1::GROUPING_NAME;
}

// Who the worker is, as the caller knows it (file names, run folder).
struct WorkerIdentity {
  std::string run;
  std::string worker_name;
  int32_t span_count = 1;
};

// Analyses `trace` (all spans of one worker, already merged).
v1::WorkerProfile BuildWorkerProfile(const trace::Trace& trace,
                                     const WorkerIdentity& identity,
                                     const ProfileOptions& options);

class DeferredNodeTables;  // analysis/deferred_node_tables.h
struct EventLinks;         // analysis/event_links.h
struct ModuleTree;         // analysis/module_tree.h
struct ModuleTreeNode;     // analysis/module_tree.h
class ModuleNodeRows;      // analysis/module_node_rows.h

// BuildWorkerProfile, leaving the module nodes' operator and kernel tables
// (options.module_tables) to `deferred`, which keeps `trace`, when they cannot
// take the profile past kMaxProfileBytes; otherwise (and without
// module_tables) `deferred` is null and the profile is BuildWorkerProfile's.
v1::WorkerProfile BuildWorkerProfile(
    const std::shared_ptr<const trace::Trace>& trace,
    const WorkerIdentity& identity, const ProfileOptions& options,
    std::unique_ptr<DeferredNodeTables>& deferred);

namespace worker_profile_internal {
// At least the bytes the module nodes' tables add to a serialized profile,
// from what each table can hold at most: rows (at most a node's events, at
// most kMaxNodeTableRows and the folded one), each with every field set, the
// longest names and a sample per kept step.
size_t NodeTablesBytesBound(const trace::Trace& trace, const EventLinks& links,
                            const ModuleTree& tree, size_t kept_steps);
}  // namespace worker_profile_internal

// A module node's operator and kernel tables, as its profile has them.
void FillModuleNodeTables(const trace::Trace& trace, const ModuleTreeNode& node,
                          ModuleNodeRows& node_rows, v1::ModuleNode& out);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_WORKER_PROFILE_H_
