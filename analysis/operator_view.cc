#include "analysis/operator_view.h"

#include <algorithm>

#include "analysis/step_of_event.h"
#include "analysis/step_samples.h"

namespace profdiff::analysis {

OperatorTimes ComputeOperatorTimes(const trace::Trace& trace,
                                   const EventLinks& links) {
  const trace::EventTable& t = trace.events;
  OperatorTimes times;
  times.host_self_ns.assign(t.size(), 0);
  times.device_self_ns.assign(t.size(), 0);
  times.device_total_ns.assign(t.size(), 0);
  for (uint32_t op : links.operators)
    times.host_self_ns[op] = t.duration_ns[op];
  for (uint32_t op : links.operators) {
    const uint32_t parent = links.op_parent[op];
    if (parent != kNoEvent) times.host_self_ns[parent] -= t.duration_ns[op];
  }
  for (uint32_t r : links.runtimes) {
    const uint32_t op = links.runtime_op[r];
    if (op != kNoEvent) times.host_self_ns[op] -= t.duration_ns[r];
  }
  for (uint32_t d : links.device_activities) {
    const uint32_t op = links.DeviceOp(d);
    if (op != kNoEvent) times.device_self_ns[op] += t.duration_ns[d];
  }
  // Children sort after their parent, so walking backwards finishes a child
  // before its parent.
  for (uint32_t op : links.operators)
    times.device_total_ns[op] = times.device_self_ns[op];
  for (auto it = links.operators.rbegin(); it != links.operators.rend(); ++it) {
    const uint32_t parent = links.op_parent[*it];
    if (parent != kNoEvent)
      times.device_total_ns[parent] += times.device_total_ns[*it];
  }
  return times;
}

bool IsOperatorRowName(std::string_view name) {
  return name != "DistributedDataParallel.forward" &&
         name != "DataParallel.forward" && !name.starts_with("Optimizer.") &&
         !name.starts_with("ProfilerStep#");
}

OperatorTable::OperatorTable(const trace::Trace& trace,
                             const OperatorTimes& times,
                             OperatorGrouping grouping,
                             const std::vector<int32_t>* step_of_event)
    : trace_(trace),
      times_(times),
      grouping_(grouping),
      step_of_event_(step_of_event) {}

trace::StringId GroupedShapes(const trace::EventTable& t,
                              OperatorGrouping grouping, uint32_t op) {
  return grouping == OperatorGrouping::kNameAndShape ? t.input_shapes[op]
                                                     : trace::StringId{};
}

void AddOperatorEvent(const trace::EventTable& t, const OperatorTimes& times,
                      uint32_t op, int32_t step, OperatorRow& row) {
  ++row.calls;
  row.host_self_ns += times.host_self_ns[op];
  row.host_total_ns += t.duration_ns[op];
  row.device_self_ns += times.device_self_ns[op];
  row.device_total_ns += times.device_total_ns[op];
  if (step == kNoStep) return;
  OperatorStepSample& sample = SampleOfStep(row.steps, step);
  ++sample.calls;
  sample.host_self_ns += times.host_self_ns[op];
  sample.host_total_ns += t.duration_ns[op];
  sample.device_self_ns += times.device_self_ns[op];
  sample.device_total_ns += times.device_total_ns[op];
}

void SortOperatorRows(const trace::StringPool& strings,
                      std::vector<OperatorRow>& rows) {
  std::sort(rows.begin(), rows.end(),
            [&strings](const OperatorRow& a, const OperatorRow& b) {
              if (a.device_total_ns != b.device_total_ns)
                return a.device_total_ns > b.device_total_ns;
              if (a.host_total_ns != b.host_total_ns)
                return a.host_total_ns > b.host_total_ns;
              const auto an = strings.Get(a.name), bn = strings.Get(b.name);
              if (an != bn) return an < bn;
              return strings.Get(a.input_shapes) < strings.Get(b.input_shapes);
            });
}

void OperatorTable::Add(uint32_t op) {
  const trace::EventTable& t = trace_.events;
  if (!IsOperatorRowName(trace_.strings.Get(t.name[op]))) return;
  const trace::StringId shapes = GroupedShapes(t, grouping_, op);
  const uint64_t key = (uint64_t{t.name[op].value} << 32) | shapes.value;
  OperatorRow& row = rows_[key];
  row.name = t.name[op];
  row.input_shapes = shapes;
  AddOperatorEvent(t, times_, op,
                   step_of_event_ != nullptr ? (*step_of_event_)[op] : kNoStep,
                   row);
}

std::vector<OperatorRow> OperatorTable::Rows() const {
  std::vector<OperatorRow> rows;
  rows.reserve(rows_.size());
  for (const auto& [key, row] : rows_) rows.push_back(row);
  SortOperatorRows(trace_.strings, rows);
  return rows;
}

}  // namespace profdiff::analysis
