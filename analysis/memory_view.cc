#include "analysis/memory_view.h"

#include <algorithm>
#include <map>
#include <utility>

#include "base/str_cat.h"

namespace profdiff::analysis {
namespace {

// Kineto's c10::DeviceType numbering.
constexpr int64_t kDeviceTypeCpu = 0;
constexpr int64_t kDeviceTypeCuda = 1;

std::string DeviceName(int64_t type, int64_t id) {
  if (type == kDeviceTypeCpu) return "cpu";
  if (type == kDeviceTypeCuda) return base::StrCat("cuda:", id);
  return base::StrCat("device", type, ":", id);
}

struct Sample {
  int64_t time_ns;
  int64_t allocated;
  int64_t reserved;
};

}  // namespace

std::vector<DeviceMemory> ComputeMemory(const trace::Trace& trace) {
  const trace::EventTable& t = trace.events;
  std::map<std::pair<int64_t, int64_t>, std::vector<Sample>> by_device;
  for (uint32_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != trace::EventKind::kMemory) continue;
    const int64_t type =
        trace.IntArg(i, trace::ArgKey::kDeviceType).value_or(kDeviceTypeCpu);
    const int64_t id = trace.IntArg(i, trace::ArgKey::kDeviceId).value_or(0);
    by_device[{type, id}].push_back(
        {t.start_ns[i],
         trace.IntArg(i, trace::ArgKey::kTotalAllocatedBytes).value_or(0),
         trace.IntArg(i, trace::ArgKey::kTotalReservedBytes).value_or(0)});
  }
  std::vector<DeviceMemory> result;
  for (auto& [device, samples] : by_device) {
    std::stable_sort(
        samples.begin(), samples.end(),
        [](const Sample& a, const Sample& b) { return a.time_ns < b.time_ns; });
    DeviceMemory memory;
    memory.device = DeviceName(device.first, device.second);
    memory.event_count = static_cast<int32_t>(samples.size());
    double weighted = 0;
    for (size_t k = 0; k < samples.size(); ++k) {
      memory.peak_allocated_bytes =
          std::max(memory.peak_allocated_bytes, samples[k].allocated);
      memory.peak_reserved_bytes =
          std::max(memory.peak_reserved_bytes, samples[k].reserved);
      if (k + 1 < samples.size()) {
        weighted +=
            static_cast<double>(samples[k].allocated) *
            static_cast<double>(samples[k + 1].time_ns - samples[k].time_ns);
      }
    }
    const int64_t span = samples.back().time_ns - samples.front().time_ns;
    memory.average_allocated_bytes =
        span > 0 ? weighted / static_cast<double>(span)
                 : static_cast<double>(samples.back().allocated);
    result.push_back(std::move(memory));
  }
  return result;
}

}  // namespace profdiff::analysis
