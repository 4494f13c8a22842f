#include "analysis/kernel_view.h"

#include <algorithm>
#include <optional>

#include "analysis/step_of_event.h"
#include "analysis/step_samples.h"

namespace profdiff::analysis {

KernelTable::KernelTable(const trace::Trace& trace, const EventLinks& links,
                         KernelGrouping grouping,
                         const std::vector<int32_t>* step_of_event)
    : trace_(trace),
      links_(links),
      grouping_(grouping),
      step_of_event_(step_of_event) {}

trace::StringId GroupedOpName(const trace::EventTable& t,
                              const EventLinks& links, KernelGrouping grouping,
                              uint32_t kernel) {
  if (grouping != KernelGrouping::kNameAndOp) return {};
  const uint32_t op = links.DeviceOp(kernel);
  return op != kNoEvent ? t.name[op] : trace::StringId{};
}

void AddKernelLaunch(int64_t duration, std::optional<double> blocks_per_sm,
                     std::optional<double> occupancy, int32_t step,
                     KernelRow& row) {
  if (row.calls == 0) row.min_ns = duration;
  ++row.calls;
  row.total_ns += duration;
  row.max_ns = std::max(row.max_ns, duration);
  row.min_ns = std::min(row.min_ns, duration);
  const double weight = static_cast<double>(duration);
  row.blocks_per_sm_weighted += blocks_per_sm.value_or(0) * weight;
  row.occupancy_weighted += occupancy.value_or(0) * weight;
  row.has_blocks_per_sm = row.has_blocks_per_sm || blocks_per_sm.has_value();
  row.has_occupancy = row.has_occupancy || occupancy.has_value();
  if (step == kNoStep) return;
  KernelStepSample& sample = SampleOfStep(row.steps, step);
  ++sample.calls;
  sample.total_ns += duration;
}

void SortKernelRows(const trace::StringPool& strings,
                    std::vector<KernelRow>& rows) {
  std::sort(rows.begin(), rows.end(),
            [&strings](const KernelRow& a, const KernelRow& b) {
              if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
              const auto an = strings.Get(a.name), bn = strings.Get(b.name);
              if (an != bn) return an < bn;
              return strings.Get(a.op_name) < strings.Get(b.op_name);
            });
}

void KernelTable::Add(uint32_t kernel) {
  const trace::EventTable& t = trace_.events;
  const trace::StringId op_name = GroupedOpName(t, links_, grouping_, kernel);
  const uint64_t key = (uint64_t{t.name[kernel].value} << 32) | op_name.value;
  KernelRow& row = rows_[key];
  if (row.calls == 0) {
    row.name = t.name[kernel];
    row.op_name = op_name;
  }
  AddKernelLaunch(
      t.duration_ns[kernel],
      trace_.DoubleArg(kernel, trace::ArgKey::kBlocksPerSm),
      trace_.DoubleArg(kernel, trace::ArgKey::kAchievedOccupancyPct),
      step_of_event_ != nullptr ? (*step_of_event_)[kernel] : kNoStep, row);
}

std::vector<KernelRow> KernelTable::Rows() const {
  std::vector<KernelRow> rows;
  rows.reserve(rows_.size());
  for (const auto& [key, row] : rows_) rows.push_back(row);
  SortKernelRows(trace_.strings, rows);
  return rows;
}

}  // namespace profdiff::analysis
