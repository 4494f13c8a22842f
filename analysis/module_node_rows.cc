#include "analysis/module_node_rows.h"

#include <utility>

#include "analysis/step_of_event.h"
#include "analysis/worker_profile.h"

namespace profdiff::analysis {
namespace {

// A row's key, as the tables key theirs: its name and what else groups it.
uint64_t Key(trace::StringId name, trace::StringId other) {
  return (uint64_t{name.value} << 32) | other.value;
}

// Moves the rows `touched` out of `rows`, leaving each as a fresh row.
template <typename Row>
std::vector<Row> TakeRows(std::vector<Row>& rows,
                          const std::vector<uint32_t>& touched) {
  std::vector<Row> out;
  out.reserve(touched.size());
  for (const uint32_t r : touched) {
    out.push_back(std::move(rows[r]));
    rows[r] = Row{};
  }
  return out;
}

}  // namespace

ModuleNodeRows::ModuleNodeRows(const trace::Trace& trace,
                               const EventLinks& links,
                               const OperatorTimes& times,
                               const std::vector<int32_t>& step_of_event)
    : trace_(trace),
      links_(links),
      times_(times),
      step_of_event_(step_of_event),
      operator_row_(trace.events.size(), 0),
      launch_(trace.events.size(), 0) {}

uint32_t ModuleNodeRows::OperatorRowOf(uint32_t op) {
  if (operator_row_[op] != 0) return operator_row_[op] - 1;
  const trace::EventTable& t = trace_.events;
  uint32_t row = kNoRow;
  if (IsOperatorRowName(trace_.strings.Get(t.name[op]))) {
    const trace::StringId shapes =
        GroupedShapes(t, kModuleNodeOperatorGrouping, op);
    const auto [it, added] = operator_row_of_key_.try_emplace(
        Key(t.name[op], shapes), static_cast<uint32_t>(operator_rows_.size()));
    if (added) operator_rows_.emplace_back();
    row = it->second;
  }
  operator_row_[op] = row + 1;
  return row;
}

const ModuleNodeRows::KernelLaunch& ModuleNodeRows::LaunchOf(uint32_t kernel) {
  if (launch_[kernel] != 0) return launches_[launch_[kernel] - 1];
  const trace::EventTable& t = trace_.events;
  const trace::StringId op_name =
      GroupedOpName(t, links_, kModuleNodeKernelGrouping, kernel);
  const auto [it, added] = kernel_row_of_key_.try_emplace(
      Key(t.name[kernel], op_name), static_cast<uint32_t>(kernel_rows_.size()));
  if (added) kernel_rows_.emplace_back();
  launches_.push_back(
      {it->second, op_name,
       trace_.DoubleArg(kernel, trace::ArgKey::kBlocksPerSm),
       trace_.DoubleArg(kernel, trace::ArgKey::kAchievedOccupancyPct)});
  launch_[kernel] = static_cast<uint32_t>(launches_.size());
  return launches_.back();
}

std::vector<OperatorRow> ModuleNodeRows::Operators(
    const std::vector<uint32_t>& operators) {
  const trace::EventTable& t = trace_.events;
  touched_.clear();
  for (const uint32_t op : operators) {
    const uint32_t r = OperatorRowOf(op);
    if (r == kNoRow) continue;
    OperatorRow& row = operator_rows_[r];
    if (row.calls == 0) {
      touched_.push_back(r);
      row.name = t.name[op];
      row.input_shapes = GroupedShapes(t, kModuleNodeOperatorGrouping, op);
    }
    AddOperatorEvent(t, times_, op, step_of_event_[op], row);
  }
  std::vector<OperatorRow> rows = TakeRows(operator_rows_, touched_);
  SortOperatorRows(trace_.strings, rows);
  return rows;
}

std::vector<KernelRow> ModuleNodeRows::Kernels(
    const std::vector<uint32_t>& kernels) {
  const trace::EventTable& t = trace_.events;
  touched_.clear();
  for (const uint32_t k : kernels) {
    const KernelLaunch& launch = LaunchOf(k);
    KernelRow& row = kernel_rows_[launch.row];
    if (row.calls == 0) {
      touched_.push_back(launch.row);
      row.name = t.name[k];
      row.op_name = launch.op_name;
    }
    AddKernelLaunch(t.duration_ns[k], launch.blocks_per_sm, launch.occupancy,
                    step_of_event_[k], row);
  }
  std::vector<KernelRow> rows = TakeRows(kernel_rows_, touched_);
  SortKernelRows(trace_.strings, rows);
  return rows;
}

}  // namespace profdiff::analysis
