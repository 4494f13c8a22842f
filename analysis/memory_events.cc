#include "analysis/memory_events.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include <absl/container/flat_hash_map.h>

#include "analysis/operator_view.h"
#include "base/str_cat.h"

namespace profdiff::analysis {
namespace {

// Kineto's c10::DeviceType numbering.
constexpr int64_t kDeviceTypeCpu = 0;
constexpr int64_t kDeviceTypeCuda = 1;
constexpr int64_t kDeviceTypeHip = 6;

// A ROCm build's allocator reports HIP devices, which torch calls "cuda":
// an H100 run and an MI300 run then diff their GPU memory on one row.
std::string DeviceName(int64_t type, int64_t id) {
  if (type == kDeviceTypeCpu) return "cpu";
  if (type == kDeviceTypeCuda || type == kDeviceTypeHip)
    return base::StrCat("cuda:", id);
  return base::StrCat("device", type, ":", id);
}

}  // namespace

MemoryEvents CollectMemoryEvents(const trace::Trace& trace,
                                 const EventLinks& links,
                                 const std::vector<int32_t>& step_of_event) {
  const trace::EventTable& t = trace.events;
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] == trace::EventKind::kMemory) ids.push_back(i);
  }
  MemoryEvents out;
  if (ids.empty()) return out;

  // 1. The innermost operator around each event, then out of those ending at
  // or before it: the plugin's intervals are [start, end).
  std::vector<uint32_t> scratch(t.size(), kNoEvent);
  std::vector<uint32_t> holder(t.size(), kNoEvent);
  NestOnThreads(trace, links.operators, ids, scratch, holder);

  // Devices in name order, so "cpu" comes before "cuda:0".
  auto device_key = [&trace](uint32_t e) {
    return std::pair(
        trace.IntArg(e, trace::ArgKey::kDeviceType).value_or(kDeviceTypeCpu),
        trace.IntArg(e, trace::ArgKey::kDeviceId).value_or(0));
  };
  std::map<std::pair<int64_t, int64_t>, int32_t> device_index;
  std::map<std::string, std::pair<int64_t, int64_t>> by_name;
  for (uint32_t e : ids) {
    const auto key = device_key(e);
    if (device_index.try_emplace(key, 0).second)
      by_name.emplace(DeviceName(key.first, key.second), key);
  }
  for (const auto& [name, key] : by_name) {
    device_index[key] = static_cast<int32_t>(out.devices.size());
    out.devices.push_back(name);
  }
  out.allocated_from_bytes.assign(out.devices.size(), true);

  out.events.reserve(ids.size());
  for (uint32_t e : ids) {
    MemoryEvent m;
    m.event = e;
    m.device = device_index.at(device_key(e));
    m.time_ns = t.start_ns[e];
    m.step = step_of_event[e];
    m.bytes = trace.IntArg(e, trace::ArgKey::kBytes).value_or(0);
    if (const auto total =
            trace.IntArg(e, trace::ArgKey::kTotalAllocatedBytes)) {
      m.allocated = *total;
      out.allocated_from_bytes[m.device] = false;
    }
    m.address = trace.IntArg(e, trace::ArgKey::kAddr);
    m.reserved =
        trace.IntArg(e, trace::ArgKey::kTotalReservedBytes).value_or(0);
    uint32_t op = holder[e];
    while (op != kNoEvent && m.time_ns >= t.end_ns(op))
      op = links.op_parent[op];
    if (op != kNoEvent && IsOperatorRowName(trace.strings.Get(t.name[op])))
      m.op = op;
    out.events.push_back(m);
  }
  std::stable_sort(out.events.begin(), out.events.end(),
                   [](const MemoryEvent& a, const MemoryEvent& b) {
                     return std::tie(a.device, a.time_ns) <
                            std::tie(b.device, b.time_ns);
                   });

  // 2 and 3, device by device in time order.
  absl::flat_hash_map<int64_t, uint32_t> allocation_op;  // address -> operator
  int64_t running = 0;
  for (size_t k = 0; k < out.events.size(); ++k) {
    MemoryEvent& m = out.events[k];
    if (k == 0 || out.events[k - 1].device != m.device) {
      allocation_op.clear();
      running = 0;
    }
    running += m.bytes;
    if (out.allocated_from_bytes[m.device]) m.allocated = running;
    const std::optional<int64_t>& address = m.address;
    if (!address) continue;
    if (m.bytes > 0) {
      allocation_op[*address] = m.op;
    } else if (const auto it = allocation_op.find(*address);
               it != allocation_op.end()) {
      m.matched = true;
      m.allocating_op = it->second;
      allocation_op.erase(it);
    }
  }
  return out;
}

}  // namespace profdiff::analysis
