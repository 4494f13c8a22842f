// Allocated and reserved memory per device from "[memory]" instant events.
#ifndef PROFDIFF_ANALYSIS_MEMORY_VIEW_H_
#define PROFDIFF_ANALYSIS_MEMORY_VIEW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace profdiff::analysis {

struct DeviceMemory {
  std::string device;  // "cpu", "cuda:0", or "device<type>:<id>"
  int64_t peak_allocated_bytes = 0;
  double average_allocated_bytes =
      0;  // time-weighted between the first and last event
  int64_t peak_reserved_bytes = 0;
  int32_t event_count = 0;
};

// One entry per device that has memory events, ordered by device name.
std::vector<DeviceMemory> ComputeMemory(const trace::Trace& trace);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_MEMORY_VIEW_H_
