#include "analysis/memory_view.h"

#include <algorithm>
#include <optional>
#include <utility>

#include <absl/container/flat_hash_map.h>

namespace profdiff::analysis {
namespace {

struct Block {
  int64_t bytes = 0;
  uint32_t op = kNoEvent;
};

// Blocks alive after events [begin, peak] of one device, by allocating
// operator.
std::vector<MemoryHolderRow> HoldersAt(const trace::Trace& trace,
                                       const std::vector<MemoryEvent>& events,
                                       size_t begin, size_t peak,
                                       bool allocated_from_bytes) {
  absl::flat_hash_map<int64_t, Block> alive;
  for (size_t k = begin; k <= peak; ++k) {
    const MemoryEvent& m = events[k];
    const std::optional<int64_t>& address = m.address;
    if (!address) continue;
    if (m.bytes > 0) {
      alive[*address] = {m.bytes, m.op};
    } else {
      alive.erase(*address);
    }
  }
  if (alive.empty()) return {};
  absl::flat_hash_map<std::string, MemoryHolderRow> by_op;
  int64_t known = 0;
  for (const auto& [address, block] : alive) {
    std::string name =
        block.op == kNoEvent
            ? std::string(kOutsideOperatorsHolder)
            : std::string(trace.strings.Get(trace.events.name[block.op]));
    MemoryHolderRow& row = by_op[name];
    row.operator_name = std::move(name);
    row.bytes += block.bytes;
    ++row.blocks;
    known += block.bytes;
  }
  std::vector<MemoryHolderRow> rows;
  for (auto& [name, row] : by_op) rows.push_back(std::move(row));
  if (!allocated_from_bytes && events[peak].allocated > known) {
    rows.push_back(
        {std::string(kBeforeTraceHolder), events[peak].allocated - known, 0});
  }
  std::sort(rows.begin(), rows.end(),
            [](const MemoryHolderRow& a, const MemoryHolderRow& b) {
              return a.bytes != b.bytes ? a.bytes > b.bytes
                                        : a.operator_name < b.operator_name;
            });
  if (rows.size() > kMaxPeakHolders) rows.resize(kMaxPeakHolders);
  return rows;
}

}  // namespace

std::vector<MemoryCurvePoint> DownsampleCurve(
    const std::vector<MemoryCurvePoint>& points, size_t max_points) {
  if (points.size() <= max_points || max_points < 2) return points;
  const size_t runs = max_points / 2;
  std::vector<MemoryCurvePoint> out;
  out.reserve(max_points);
  for (size_t r = 0; r < runs; ++r) {
    const size_t begin = points.size() * r / runs;
    const size_t end = points.size() * (r + 1) / runs;
    size_t low = begin;
    size_t high = begin;
    for (size_t k = begin; k < end; ++k) {
      if (points[k].allocated < points[low].allocated) low = k;
      if (points[k].allocated > points[high].allocated) high = k;
    }
    out.push_back(points[std::min(low, high)]);
    if (low != high) out.push_back(points[std::max(low, high)]);
  }
  return out;
}

std::vector<DeviceMemory> ComputeMemory(const trace::Trace& trace,
                                        const MemoryEvents& memory,
                                        const StepWindows& steps) {
  const std::vector<MemoryEvent>& events = memory.events;
  std::vector<DeviceMemory> result;
  size_t begin = 0;
  while (begin < events.size()) {
    size_t end = begin;
    while (end < events.size() && events[end].device == events[begin].device)
      ++end;
    // Inside the kept steps (all events when the worker has no kept step).
    std::vector<size_t> inside;
    for (size_t k = begin; k < end; ++k) {
      if (steps.kept.empty() || events[k].step != kNoMemoryStep)
        inside.push_back(k);
    }
    if (!inside.empty()) {
      DeviceMemory d;
      d.device = memory.devices[static_cast<size_t>(events[begin].device)];
      d.allocated_from_bytes =
          memory
              .allocated_from_bytes[static_cast<size_t>(events[begin].device)];
      d.event_count = static_cast<int32_t>(inside.size());
      const int64_t origin = steps.kept.empty()
                                 ? events[inside.front()].time_ns
                                 : steps.kept.front().host_start_ns;
      size_t peak = inside.front();
      double weighted = 0;
      std::vector<MemoryCurvePoint> curve;
      for (size_t i = 0; i < inside.size(); ++i) {
        const MemoryEvent& m = events[inside[i]];
        if (m.allocated > events[peak].allocated) peak = inside[i];
        d.peak_reserved_bytes = std::max(d.peak_reserved_bytes, m.reserved);
        if (i + 1 < inside.size()) {
          weighted +=
              static_cast<double>(m.allocated) *
              static_cast<double>(events[inside[i + 1]].time_ns - m.time_ns);
        }
        // Every event, those at one time too: an allocation freed within the
        // same microsecond is a spike the peak may be.
        curve.push_back({m.time_ns - origin, m.allocated, m.reserved});
      }
      const int64_t span =
          events[inside.back()].time_ns - events[inside.front()].time_ns;
      d.average_allocated_bytes =
          span > 0 ? weighted / static_cast<double>(span)
                   : static_cast<double>(events[inside.back()].allocated);
      d.peak_allocated_bytes = events[peak].allocated;
      d.peak_offset_ns = events[peak].time_ns - origin;
      d.peak_step = events[peak].step;
      if (d.peak_step != kNoMemoryStep)
        d.peak_step_number =
            steps.kept[static_cast<size_t>(d.peak_step)].number;
      d.peak_op = events[peak].op;
      d.holders = HoldersAt(trace, events, begin, peak, d.allocated_from_bytes);
      d.curve = DownsampleCurve(curve, kMaxCurvePoints);
      result.push_back(std::move(d));
    }
    begin = end;
  }
  return result;
}

}  // namespace profdiff::analysis
