// Allocated and reserved memory per device over the kept steps: peak, average,
// where the peak happened and what was alive then, and the curve (issue 24).
//
// Design:
// 1. Only events inside the kept steps count, so the peak is the highest
//    allocated total at an event in the steps, as users read it off the
//    plugin's curve there. The allocator records its events on host threads,
//    so a step is its host ProfilerStep range (analysis/step_of_event.h, issue
//    44), and curve offsets count from the first kept step's host start.
//    Average: time-weighted between the first and last event inside.
// 2. What was alive at the peak: every block allocated on the device before the
//    peak event (from the trace's start) and not freed by then, matched by
//    address, summed by the operator that allocated it; what the totals hold
//    beyond those blocks was allocated before the trace began (only known when
//    the events carry "Total Allocated").
// 3. The curve is down-sampled to at most kMaxCurvePoints: the events fall in
//    equal runs and each run keeps its lowest and highest point in time order,
//    so the peak stays exact.
#ifndef PROFDIFF_ANALYSIS_MEMORY_VIEW_H_
#define PROFDIFF_ANALYSIS_MEMORY_VIEW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/memory_events.h"
#include "analysis/steps.h"
#include "trace/trace.h"

namespace profdiff::analysis {

inline constexpr size_t kMaxCurvePoints = 2000;
inline constexpr size_t kMaxPeakHolders = 10;
inline constexpr std::string_view kBeforeTraceHolder =
    "(allocated before the trace)";
inline constexpr std::string_view kOutsideOperatorsHolder =
    "(outside operators)";

struct MemoryCurvePoint {
  // After the first kept step's host start (or the first event's).
  int64_t offset_ns = 0;
  int64_t allocated = 0;
  int64_t reserved = 0;
};

struct MemoryHolderRow {
  std::string operator_name;
  int64_t bytes = 0;
  int32_t blocks = 0;
};

struct DeviceMemory {
  std::string device;  // "cpu", "cuda:0", or "device<type>:<id>"
  int64_t peak_allocated_bytes = 0;
  double average_allocated_bytes = 0;
  int64_t peak_reserved_bytes = 0;
  int32_t event_count = 0;  // inside the kept steps
  bool allocated_from_bytes = false;
  std::vector<MemoryCurvePoint> curve;
  int64_t peak_offset_ns = 0;
  int32_t peak_step = kNoMemoryStep;  // index into StepWindows::kept
  int64_t peak_step_number = 0;       // its N of ProfilerStep#N
  uint32_t peak_op = kNoEvent;
  std::vector<MemoryHolderRow> holders;  // largest first
};

// One entry per device with memory events inside the kept steps, by device
// name.
std::vector<DeviceMemory> ComputeMemory(const trace::Trace& trace,
                                        const MemoryEvents& memory,
                                        const StepWindows& steps);

// At most `max_points` of `points` (sorted by time), the lowest and highest of
// each run kept.
std::vector<MemoryCurvePoint> DownsampleCurve(
    const std::vector<MemoryCurvePoint>& points, size_t max_points);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_MEMORY_VIEW_H_
