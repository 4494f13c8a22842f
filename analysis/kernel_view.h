// The kernel view (docs/semantics.md §5): calls, total/mean/max/min duration
// and duration-weighted blocks per SM and occupancy, by kernel name or by
// name + launching operator.
#ifndef PROFDIFF_ANALYSIS_KERNEL_VIEW_H_
#define PROFDIFF_ANALYSIS_KERNEL_VIEW_H_

#include <cstdint>
#include <optional>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "analysis/event_links.h"
#include "trace/trace.h"

namespace profdiff::analysis {

// A row's share of one kept step.
struct KernelStepSample {
  int32_t step = 0;  // index into StepWindows::kept
  int32_t calls = 0;
  int64_t total_ns = 0;
};

struct KernelRow {
  trace::StringId name;
  trace::StringId
      op_name;  // 0 when grouped by name, or when no operator launched it
  int32_t calls = 0;
  int64_t total_ns = 0;
  int64_t max_ns = 0;
  int64_t min_ns = 0;
  double blocks_per_sm_weighted =
      0;  // Σ blocks per SM · duration (missing counts as 0)
  double occupancy_weighted =
      0;  // Σ occupancy % · duration (missing counts as 0)
  // Whether any launch recorded the value (ROCm traces record neither):
  // without one the mean is unknown, not 0.
  bool has_blocks_per_sm = false;
  bool has_occupancy = false;
  std::vector<KernelStepSample> steps;  // by step, for steps where the row ran
};

enum class KernelGrouping : uint8_t { kName, kNameAndOp };

// The launching operator a row of `grouping` holds for `kernel` (none when
// grouped by name, or when no operator launched it).
trace::StringId GroupedOpName(const trace::EventTable& t,
                              const EventLinks& links, KernelGrouping grouping,
                              uint32_t kernel);

// Adds a launch of `duration` to `row` (its name and operator are the
// caller's), and to its sample of `step` unless that is kNoStep. A value
// missing counts as 0 in the weighted sums.
void AddKernelLaunch(int64_t duration, std::optional<double> blocks_per_sm,
                     std::optional<double> occupancy, int32_t step,
                     KernelRow& row);

// Sorts rows by total duration, descending, then by name and operator: one
// order whatever order they come in.
void SortKernelRows(const trace::StringPool& strings,
                    std::vector<KernelRow>& rows);

// Accumulates kernel events into rows. The trace and links must outlive it.
class KernelTable {
 public:
  // `step_of_event` (from AssignEventsToSteps) may be null: then rows carry no
  // step samples.
  KernelTable(const trace::Trace& trace, const EventLinks& links,
              KernelGrouping grouping,
              const std::vector<int32_t>* step_of_event = nullptr);
  void Add(uint32_t kernel);
  // Rows in SortKernelRows' order.
  std::vector<KernelRow> Rows() const;

 private:
  const trace::Trace& trace_;
  const EventLinks& links_;
  KernelGrouping grouping_;
  const std::vector<int32_t>* step_of_event_;
  absl::flat_hash_map<uint64_t, KernelRow>
      rows_;  // key: name id << 32 | op name id
};

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_KERNEL_VIEW_H_
