// The operator view (docs/semantics.md §5): host and device self/total time of
// every operator, aggregated by name or by name + input shapes, for the whole
// trace or any subset of operators.
#ifndef PROFDIFF_ANALYSIS_OPERATOR_VIEW_H_
#define PROFDIFF_ANALYSIS_OPERATOR_VIEW_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "analysis/event_links.h"
#include "trace/trace.h"

namespace profdiff::analysis {

// Per-event times of operator events (indexed by event; 0 for other events).
struct OperatorTimes {
  std::vector<int64_t>
      host_self_ns;  // wall - children's wall - own runtime calls' wall
  std::vector<int64_t>
      device_self_ns;  // Σ device activities launched by its own runtime calls
  std::vector<int64_t>
      device_total_ns;  // device self + children's device total
};

OperatorTimes ComputeOperatorTimes(const trace::Trace& trace,
                                   const EventLinks& links);

// False for ranges the plugin does not list as operators
// (DistributedDataParallel.forward, DataParallel.forward, Optimizer.*).
bool IsOperatorRowName(std::string_view name);

// A row's share of one kept step.
struct OperatorStepSample {
  int32_t step = 0;  // index into StepWindows::kept
  int32_t calls = 0;
  int64_t host_self_ns = 0;
  int64_t host_total_ns = 0;
  int64_t device_self_ns = 0;
  int64_t device_total_ns = 0;
};

struct OperatorRow {
  trace::StringId name;
  trace::StringId input_shapes;  // 0 when grouped by name
  int32_t calls = 0;
  int64_t host_self_ns = 0;
  int64_t host_total_ns = 0;
  int64_t device_self_ns = 0;
  int64_t device_total_ns = 0;
  std::vector<OperatorStepSample>
      steps;  // by step, for steps where the row ran
};

enum class OperatorGrouping : uint8_t { kName, kNameAndShape };

// The input shapes a row of `grouping` holds for event `op` (none when
// grouped by name).
trace::StringId GroupedShapes(const trace::EventTable& t,
                              OperatorGrouping grouping, uint32_t op);

// Adds operator event `op` to `row` (its name and shapes are the caller's),
// and to its sample of `step` unless that is kNoStep.
void AddOperatorEvent(const trace::EventTable& t, const OperatorTimes& times,
                      uint32_t op, int32_t step, OperatorRow& row);

// Sorts rows by device total, then host total, descending, then by name and
// shapes: one order whatever order they come in.
void SortOperatorRows(const trace::StringPool& strings,
                      std::vector<OperatorRow>& rows);

// Accumulates operator events into rows. The trace and times must outlive it.
class OperatorTable {
 public:
  // `step_of_event` (from AssignEventsToSteps) may be null: then rows carry no
  // step samples.
  OperatorTable(const trace::Trace& trace, const OperatorTimes& times,
                OperatorGrouping grouping,
                const std::vector<int32_t>* step_of_event = nullptr);
  // Adds operator event `op` (ignored when its name is not an operator row).
  void Add(uint32_t op);
  // Rows in SortOperatorRows' order.
  std::vector<OperatorRow> Rows() const;

 private:
  const trace::Trace& trace_;
  const OperatorTimes& times_;
  OperatorGrouping grouping_;
  const std::vector<int32_t>* step_of_event_;
  absl::flat_hash_map<uint64_t, OperatorRow>
      rows_;  // key: name id << 32 | shapes id
};

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_OPERATOR_VIEW_H_
