// Memory per operator and per module node (issue 24): the TensorBoard plugin's
// memory table columns (kineto tb_plugin/torch_tb_profiler/run.py
// get_memory_stats, memory_parser.py get_memory_statistics), per device, over
// the kept steps, with per-step samples.
//
// Design:
// 1. A contribution is one memory event inside the kept steps attributed to an
//    operator (analysis/memory_events.h): an allocation counts once with its
//    bytes, and every event adds its signed bytes to the increase. With no
//    "[memory]" event at all, an operator's "Self CPU Memory Usage" arg (the
//    legacy profiler's self_cpu_memory_usage, as examples/workloads/train.py
//    writes it) is one contribution: its self increase on the CPU, with no
//    allocation count or bytes.
// 2. Self columns: the operator's own contributions. The others add those of
//    every operator nested inside it (the plugin's traverse_node_memory sums
//    children through any node). Rows are keyed as the operator view groups
//    (name, or name + input shapes) and device; a row exists where any column
//    is not zero (the plugin's `if any(values)`).
// 3. A module node's memory is its operators' self contributions (operators
//    nested inside it at any depth, each once); its peak is the highest
//    allocated total at one of them.
#ifndef PROFDIFF_ANALYSIS_MEMORY_TABLES_H_
#define PROFDIFF_ANALYSIS_MEMORY_TABLES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/event_links.h"
#include "analysis/memory_events.h"
#include "analysis/module_tree.h"
#include "analysis/operator_view.h"
#include "trace/trace.h"

namespace profdiff::analysis {

enum class MemorySourceKind : uint8_t { kNone, kEvents, kSelfCpuMemoryUsage };

struct MemoryContribution {
  uint32_t op = kNoEvent;
  int32_t device = 0;  // index into MemoryContributions::devices
  int32_t step = kNoMemoryStep;
  int64_t allocations = 0;
  int64_t allocation_bytes = 0;
  int64_t increase = 0;
  int64_t allocated_after =
      0;  // the device total after it (0 for the legacy arg)
};

struct MemoryContributions {
  MemorySourceKind source = MemorySourceKind::kNone;
  std::vector<std::string> devices;
  std::vector<MemoryContribution> items;  // by device, then time (events)
};

// `step_of_event` (from AssignEventsToSteps) gives the legacy arg's step.
MemoryContributions CollectMemoryContributions(
    const trace::Trace& trace, const EventLinks& links,
    const MemoryEvents& memory, const std::vector<int32_t>& step_of_event);

struct MemoryStepRow {
  int32_t step = 0;  // index into StepWindows::kept
  int64_t allocation_count = 0;
  int64_t allocation_bytes = 0;
  int64_t self_increase_bytes = 0;
  int64_t increase_bytes = 0;          // operators: children's included
  int64_t total_allocation_bytes = 0;  // operators: children's included
};

struct OperatorMemoryRow {
  trace::StringId name;
  trace::StringId input_shapes;
  int32_t device = 0;
  int32_t calls = 0;
  int64_t self_allocation_count = 0;
  int64_t self_allocation_bytes = 0;
  int64_t self_increase_bytes = 0;
  int64_t allocation_count = 0;
  int64_t allocation_bytes = 0;
  int64_t increase_bytes = 0;
  std::vector<MemoryStepRow> steps;
};

// Rows by device, then self allocation bytes, then self increase, descending.
std::vector<OperatorMemoryRow> OperatorMemoryRows(
    const trace::Trace& trace, const EventLinks& links,
    const MemoryContributions& memory, OperatorGrouping grouping);

struct ModuleMemoryRow {
  uint32_t node = 0;  // index into ModuleTree::nodes
  int32_t device = 0;
  int64_t allocation_count = 0;
  int64_t allocation_bytes = 0;
  int64_t increase_bytes = 0;
  int64_t peak_allocated_bytes = 0;
  std::vector<MemoryStepRow> steps;
};

// Rows in tree order (nodes, then devices), for nodes other than the root with
// memory.
std::vector<ModuleMemoryRow> ModuleMemoryRows(
    const ModuleTree& tree, const MemoryContributions& memory);

// The innermost node holding each operator event (kNoEvent where none does),
// indexed by event.
std::vector<uint32_t> InnermostNodeOfOperators(const trace::Trace& trace,
                                               const ModuleTree& tree);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_MEMORY_TABLES_H_
