// The operator and kernel rows of a profile's module nodes
// (kModuleNodeOperatorGrouping, kModuleNodeKernelGrouping): each node's are
// the rows an OperatorTable and a KernelTable make of its events, the same
// sums added in the same order. An event is in every node above it, so what is
// the same in each (the row it adds to, whether its name makes one, a kernel's
// launching operator and arguments) is found once per event, not once per
// node: a table per node hashed and looked each of them up again (a fifth of
// the xDiT trace's profile).
#ifndef PROFDIFF_ANALYSIS_MODULE_NODE_ROWS_H_
#define PROFDIFF_ANALYSIS_MODULE_NODE_ROWS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "analysis/event_links.h"
#include "analysis/kernel_view.h"
#include "analysis/operator_view.h"
#include "trace/trace.h"

namespace profdiff::analysis {

// Not thread-safe. The trace, links, times and steps must outlive it.
class ModuleNodeRows {
 public:
  ModuleNodeRows(const trace::Trace& trace, const EventLinks& links,
                 const OperatorTimes& times,
                 const std::vector<int32_t>& step_of_event);

  // What OperatorTable(kModuleNodeOperatorGrouping) gives for `operators`.
  std::vector<OperatorRow> Operators(const std::vector<uint32_t>& operators);
  // What KernelTable(kModuleNodeKernelGrouping) gives for `kernels`.
  std::vector<KernelRow> Kernels(const std::vector<uint32_t>& kernels);

 private:
  // What every node a kernel is in adds for it.
  struct KernelLaunch {
    uint32_t row;             // into kernel_rows_
    trace::StringId op_name;  // the row's launching operator, as grouped
    std::optional<double> blocks_per_sm;
    std::optional<double> occupancy;
  };
  static constexpr uint32_t kNoRow = UINT32_MAX;

  uint32_t OperatorRowOf(uint32_t op);
  const KernelLaunch& LaunchOf(uint32_t kernel);

  const trace::Trace& trace_;
  const EventLinks& links_;
  const OperatorTimes& times_;
  const std::vector<int32_t>& step_of_event_;
  // Per event, found when first added, plus one (0: not yet found): its row
  // (or kNoRow), its launch.
  std::vector<uint32_t> operator_row_;
  std::vector<uint32_t> launch_;
  std::vector<KernelLaunch> launches_;
  absl::flat_hash_map<uint64_t, uint32_t> operator_row_of_key_;
  absl::flat_hash_map<uint64_t, uint32_t> kernel_row_of_key_;
  // One per key; a node's rows are added here, moved out, and left zero.
  std::vector<OperatorRow> operator_rows_;
  std::vector<KernelRow> kernel_rows_;
  std::vector<uint32_t> touched_;  // the rows of the node being added
};

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_MODULE_NODE_ROWS_H_
