// GPU utilization, estimated SM efficiency and estimated achieved occupancy per
// device, over the kept steps, as the TensorBoard plugin defines them
// (docs/semantics.md §4).
#ifndef PROFDIFF_ANALYSIS_GPU_METRICS_H_
#define PROFDIFF_ANALYSIS_GPU_METRICS_H_

#include <cstdint>
#include <vector>

#include "analysis/event_links.h"
#include "analysis/steps.h"
#include "trace/trace.h"

namespace profdiff::analysis {

struct DeviceGpuMetrics {
  int64_t device = 0;
  double gpu_utilization = 0;  // |∪ kernels ∩ span| / span
  double sm_efficiency = 0;    // ∫ min(Σ blocks per SM, 1) dt / span
  double achieved_occupancy_pct =
      0;  // Σ occ·dur / Σ dur over kernels that report it
  int64_t kernel_busy_ns = 0;  // |∪ kernels ∩ span|
  bool has_sm_efficiency = false;
  bool has_occupancy = false;
};

// Devices that ran at least one kernel, by device index.
std::vector<DeviceGpuMetrics> ComputeGpuMetrics(const trace::Trace& trace,
                                                const EventLinks& links,
                                                const StepWindows& steps);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_GPU_METRICS_H_
