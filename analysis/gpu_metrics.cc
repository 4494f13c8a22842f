#include "analysis/gpu_metrics.h"

#include <algorithm>
#include <map>

#include "analysis/interval_set.h"

namespace profdiff::analysis {
namespace {

struct WeightedEdge {
  int64_t time_ns;
  double delta;  // + blocks per SM at a kernel's start, - at its end
};

// ∫ min(Σ active weights, 1) dt over the edges.
double IntegrateCapped(std::vector<WeightedEdge>& edges) {
  std::sort(edges.begin(), edges.end(),
            [](const WeightedEdge& a, const WeightedEdge& b) {
              return a.time_ns < b.time_ns;
            });
  double total = 0;
  double level = 0;
  for (size_t k = 0; k < edges.size(); ++k) {
    if (k > 0)
      total += std::min(level, 1.0) *
               static_cast<double>(edges[k].time_ns - edges[k - 1].time_ns);
    level += edges[k].delta;
    if (level < 1e-12) level = 0;  // keep rounding noise from accumulating
  }
  return total;
}

struct DeviceAccumulator {
  std::vector<Interval> kernels;
  std::vector<WeightedEdge> sm_edges;
  double occupancy_weighted = 0;
  double occupancy_ns = 0;
};

}  // namespace

std::vector<DeviceGpuMetrics> ComputeGpuMetrics(const trace::Trace& trace,
                                                const EventLinks& links,
                                                const StepWindows& steps) {
  const trace::EventTable& t = trace.events;
  std::map<int64_t, DeviceAccumulator>
      devices;  // ordered: devices print by index
  int64_t span_ns = 0;
  for (const Interval& w : steps.windows) span_ns += w.length_ns();
  for (uint32_t i : links.device_activities) {
    if (t.kind[i] != trace::EventKind::kKernel) continue;
    DeviceAccumulator& acc = devices[t.pid[i]];
    // Clip to the window of the kernel's span (windows are disjoint and few).
    int64_t start = 0;
    int64_t end = 0;
    for (const Interval& w : steps.windows) {
      start = std::max(t.start_ns[i], w.start_ns);
      end = std::min(t.end_ns(i), w.end_ns);
      if (end > start) break;
    }
    if (end <= start) continue;
    acc.kernels.push_back({start, end});
    if (auto blocks = trace.DoubleArg(i, trace::ArgKey::kBlocksPerSm);
        blocks && *blocks > 0) {
      acc.sm_edges.push_back({start, *blocks});
      acc.sm_edges.push_back({end, -*blocks});
    }
    if (auto occupancy =
            trace.DoubleArg(i, trace::ArgKey::kAchievedOccupancyPct);
        occupancy && *occupancy >= 0) {
      acc.occupancy_weighted += *occupancy * static_cast<double>(end - start);
      acc.occupancy_ns += static_cast<double>(end - start);
    }
  }
  std::vector<DeviceGpuMetrics> result;
  const double span = static_cast<double>(span_ns);
  for (auto& [device, acc] : devices) {
    DeviceGpuMetrics metrics;
    metrics.device = device;
    metrics.kernel_busy_ns =
        TotalLength(MergeIntervals(std::move(acc.kernels)));
    if (span > 0) {
      metrics.gpu_utilization =
          static_cast<double>(metrics.kernel_busy_ns) / span;
      metrics.has_sm_efficiency = !acc.sm_edges.empty();
      if (metrics.has_sm_efficiency)
        metrics.sm_efficiency = IntegrateCapped(acc.sm_edges) / span;
    }
    metrics.has_occupancy = acc.occupancy_ns > 0;
    if (metrics.has_occupancy)
      metrics.achieved_occupancy_pct =
          acc.occupancy_weighted / acc.occupancy_ns;
    result.push_back(metrics);
  }
  return result;
}

}  // namespace profdiff::analysis
