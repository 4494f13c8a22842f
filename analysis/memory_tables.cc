#include "analysis/memory_tables.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "analysis/step_of_event.h"
#include "analysis/step_samples.h"

namespace profdiff::analysis {
namespace {

void AddToStep(std::vector<MemoryStepRow>& steps, const MemoryContribution& c,
               bool self) {
  if (c.step == kNoMemoryStep) return;
  MemoryStepRow& s = SampleOfStep(steps, c.step);
  if (self) {
    s.allocation_count += c.allocations;
    s.allocation_bytes += c.allocation_bytes;
    s.self_increase_bytes += c.increase;
  }
  s.total_allocation_bytes += c.allocation_bytes;
  s.increase_bytes += c.increase;
}

}  // namespace

MemoryContributions CollectMemoryContributions(
    const trace::Trace& trace, const EventLinks& links,
    const MemoryEvents& memory, const std::vector<int32_t>& step_of_event) {
  MemoryContributions out;
  if (!memory.events.empty()) {
    out.source = MemorySourceKind::kEvents;
    out.devices = memory.devices;
    for (const MemoryEvent& m : memory.events) {
      if (m.op == kNoEvent || m.step == kNoMemoryStep) continue;
      out.items.push_back({m.op, m.device, m.step, m.bytes > 0 ? 1 : 0,
                           std::max<int64_t>(m.bytes, 0), m.bytes,
                           m.allocated});
    }
    return out;
  }
  for (uint32_t op : links.operators) {
    const auto usage = trace.IntArg(op, trace::ArgKey::kSelfCpuMemoryUsage);
    if (!usage) continue;
    out.source = MemorySourceKind::kSelfCpuMemoryUsage;
    if (*usage == 0 || step_of_event[op] == kNoStep) continue;
    if (!IsOperatorRowName(trace.strings.Get(trace.events.name[op]))) continue;
    out.items.push_back({op, 0, step_of_event[op], 0, 0, *usage, 0});
  }
  if (out.source == MemorySourceKind::kSelfCpuMemoryUsage)
    out.devices = {"cpu"};
  return out;
}

std::vector<OperatorMemoryRow> OperatorMemoryRows(
    const trace::Trace& trace, const EventLinks& links,
    const MemoryContributions& memory, OperatorGrouping grouping) {
  const trace::EventTable& t = trace.events;
  using Key = std::tuple<uint32_t, uint32_t, int32_t>;  // name, shapes, device
  absl::flat_hash_map<Key, OperatorMemoryRow> rows;
  absl::flat_hash_set<std::pair<uint32_t, int32_t>> counted;  // (op, device)
  auto row_of = [&](uint32_t op, int32_t device) -> OperatorMemoryRow& {
    const trace::StringId shapes = grouping == OperatorGrouping::kNameAndShape
                                       ? t.input_shapes[op]
                                       : trace::StringId{};
    OperatorMemoryRow& row = rows[Key{t.name[op].value, shapes.value, device}];
    row.name = t.name[op];
    row.input_shapes = shapes;
    row.device = device;
    if (counted.insert({op, device}).second) ++row.calls;
    return row;
  };
  for (const MemoryContribution& c : memory.items) {
    bool self = true;
    for (uint32_t op = c.op; op != kNoEvent; op = links.op_parent[op]) {
      if (IsOperatorRowName(trace.strings.Get(t.name[op]))) {
        OperatorMemoryRow& row = row_of(op, c.device);
        if (self) {
          row.self_allocation_count += c.allocations;
          row.self_allocation_bytes += c.allocation_bytes;
          row.self_increase_bytes += c.increase;
        }
        row.allocation_count += c.allocations;
        row.allocation_bytes += c.allocation_bytes;
        row.increase_bytes += c.increase;
        AddToStep(row.steps, c, self);
      }
      self = false;
    }
  }
  std::vector<OperatorMemoryRow> out;
  out.reserve(rows.size());
  for (auto& [key, row] : rows) {
    if (row.allocation_count != 0 || row.allocation_bytes != 0 ||
        row.increase_bytes != 0 || row.self_increase_bytes != 0) {
      out.push_back(std::move(row));
    }
  }
  std::sort(out.begin(), out.end(),
            [&trace](const OperatorMemoryRow& a, const OperatorMemoryRow& b) {
              return std::make_tuple(a.device, -a.self_allocation_bytes,
                                     -a.self_increase_bytes,
                                     trace.strings.Get(a.name),
                                     trace.strings.Get(a.input_shapes)) <
                     std::make_tuple(b.device, -b.self_allocation_bytes,
                                     -b.self_increase_bytes,
                                     trace.strings.Get(b.name),
                                     trace.strings.Get(b.input_shapes));
            });
  return out;
}

std::vector<uint32_t> InnermostNodeOfOperators(const trace::Trace& trace,
                                               const ModuleTree& tree) {
  std::vector<uint32_t> node_of(trace.events.size(), kNoEvent);
  // Parents precede children, so a deeper node overwrites its ancestors.
  for (uint32_t n = 1; n < tree.nodes.size(); ++n) {
    for (uint32_t op : tree.nodes[n].operators) node_of[op] = n;
  }
  return node_of;
}

std::vector<ModuleMemoryRow> ModuleMemoryRows(
    const ModuleTree& tree, const MemoryContributions& memory) {
  std::vector<ModuleMemoryRow> out;
  if (memory.items.empty()) return out;
  // Each operator's contributions, in order.
  absl::flat_hash_map<uint32_t, std::vector<uint32_t>> of_op;
  for (uint32_t k = 0; k < memory.items.size(); ++k)
    of_op[memory.items[k].op].push_back(k);
  std::vector<ModuleMemoryRow> per_device(memory.devices.size());
  std::vector<bool> touched(memory.devices.size());
  for (uint32_t n = 1; n < tree.nodes.size(); ++n) {
    std::fill(touched.begin(), touched.end(), false);
    for (ModuleMemoryRow& row : per_device) row = ModuleMemoryRow{};
    for (uint32_t op : tree.nodes[n].operators) {
      const auto it = of_op.find(op);
      if (it == of_op.end()) continue;
      for (uint32_t k : it->second) {
        const MemoryContribution& c = memory.items[k];
        ModuleMemoryRow& row = per_device[static_cast<size_t>(c.device)];
        touched[static_cast<size_t>(c.device)] = true;
        row.allocation_count += c.allocations;
        row.allocation_bytes += c.allocation_bytes;
        row.increase_bytes += c.increase;
        row.peak_allocated_bytes =
            std::max(row.peak_allocated_bytes, c.allocated_after);
        AddToStep(row.steps, c, true);
      }
    }
    for (size_t d = 0; d < per_device.size(); ++d) {
      if (!touched[d]) continue;
      per_device[d].node = n;
      per_device[d].device = static_cast<int32_t>(d);
      out.push_back(std::move(per_device[d]));
    }
  }
  return out;
}

}  // namespace profdiff::analysis
