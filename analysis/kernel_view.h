// The kernel view (SEMANTICS.md §5): calls, total/mean/max/min duration and duration-weighted
// blocks per SM and occupancy, by kernel name or by name + launching operator.
#ifndef PROFDIFF_ANALYSIS_KERNEL_VIEW_H_
#define PROFDIFF_ANALYSIS_KERNEL_VIEW_H_

#include <cstdint>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "analysis/event_links.h"
#include "trace/trace.h"

namespace profdiff::analysis {

struct KernelRow {
  trace::StringId name;
  trace::StringId op_name;  // 0 when grouped by name, or when no operator launched it
  int32_t calls = 0;
  int64_t total_ns = 0;
  int64_t max_ns = 0;
  int64_t min_ns = 0;
  double blocks_per_sm_weighted = 0;  // Σ blocks per SM · duration (missing counts as 0)
  double occupancy_weighted = 0;      // Σ occupancy % · duration (missing counts as 0)
};

enum class KernelGrouping : uint8_t { kName, kNameAndOp };

// Accumulates kernel events into rows. The trace and links must outlive it.
class KernelTable {
 public:
  KernelTable(const trace::Trace& trace, const EventLinks& links, KernelGrouping grouping);
  void Add(uint32_t kernel);
  // Rows by total duration, descending.
  std::vector<KernelRow> Rows() const;

 private:
  const trace::Trace& trace_;
  const EventLinks& links_;
  KernelGrouping grouping_;
  absl::flat_hash_map<uint64_t, KernelRow> rows_;  // key: name id << 32 | op name id
};

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_KERNEL_VIEW_H_
