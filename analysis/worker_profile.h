// Builds a worker's profile (protos/profdiff/v1/profile.proto) from its trace:
// steps and their breakdown, GPU metrics, operator and kernel views, module
// tree, memory and communication.
#ifndef PROFDIFF_ANALYSIS_WORKER_PROFILE_H_
#define PROFDIFF_ANALYSIS_WORKER_PROFILE_H_

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

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_WORKER_PROFILE_H_
