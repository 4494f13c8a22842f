#include "analysis/memory_profile.h"

#include <string>

#include "analysis/memory_tables.h"

namespace profdiff::analysis {
namespace {

void FillStepSamples(
    const std::vector<MemoryStepRow>& steps,
    google::protobuf::RepeatedPtrField<v1::MemoryStepSample>& out) {
  for (const MemoryStepRow& s : steps) {
    v1::MemoryStepSample* sample = out.Add();
    sample->set_step_index(s.step);
    sample->set_allocation_count(s.allocation_count);
    sample->set_allocation_bytes(s.allocation_bytes);
    sample->set_self_increase_bytes(s.self_increase_bytes);
    sample->set_increase_bytes(s.increase_bytes);
    sample->set_total_allocation_bytes(s.total_allocation_bytes);
  }
}

// Paths as the module tree's proto names them: names from the root joined by
// "/".
std::vector<std::string> NodePaths(const ModuleTree& tree) {
  std::vector<std::string> paths(tree.nodes.size());
  for (uint32_t n = 1; n < tree.nodes.size(); ++n) {
    const uint32_t parent = tree.nodes[n].parent;
    paths[n] = parent == 0 || parent == kNoEvent
                   ? tree.nodes[n].name
                   : paths[parent] + "/" + tree.nodes[n].name;
  }
  return paths;
}

}  // namespace

void FillMemory(const MemoryInputs& in, v1::WorkerProfile& profile) {
  const trace::Trace& trace = in.trace;
  const std::vector<std::string> paths = NodePaths(in.tree);
  const std::vector<uint32_t> node_of =
      InnermostNodeOfOperators(trace, in.tree);
  for (const DeviceMemory& m : in.devices) {
    v1::MemoryStats* memory = profile.add_memory();
    memory->set_device(m.device);
    memory->set_peak_allocated_bytes(m.peak_allocated_bytes);
    memory->set_average_allocated_bytes(m.average_allocated_bytes);
    memory->set_peak_reserved_bytes(m.peak_reserved_bytes);
    memory->set_event_count(m.event_count);
    memory->set_allocated_from_bytes(m.allocated_from_bytes);
    for (const MemoryCurvePoint& p : m.curve) {
      v1::MemoryPoint* point = memory->add_curve();
      point->set_offset_ns(p.offset_ns);
      point->set_allocated_bytes(p.allocated);
      point->set_reserved_bytes(p.reserved);
    }
    memory->set_peak_offset_ns(m.peak_offset_ns);
    memory->set_peak_step_index(m.peak_step);
    if (m.peak_step != kNoMemoryStep) memory->set_peak_step(m.peak_step_number);
    if (m.peak_op != kNoEvent) {
      memory->set_peak_operator(
          std::string(trace.strings.Get(trace.events.name[m.peak_op])));
      if (node_of[m.peak_op] != kNoEvent)
        memory->set_peak_module(paths[node_of[m.peak_op]]);
    }
    for (const MemoryHolderRow& h : m.holders) {
      v1::MemoryHolder* holder = memory->add_peak_holders();
      holder->set_operator_name(h.operator_name);
      holder->set_bytes(h.bytes);
      holder->set_blocks(h.blocks);
    }
  }

  const MemoryContributions contributions =
      CollectMemoryContributions(trace, in.links, in.events, in.step_of_event);
  switch (contributions.source) {
    case MemorySourceKind::kNone:
      profile.set_memory_source(v1::MEMORY_SOURCE_NONE);
      return;
    case MemorySourceKind::kEvents:
      profile.set_memory_source(v1::MEMORY_SOURCE_EVENTS);
      break;
    case MemorySourceKind::kSelfCpuMemoryUsage:
      profile.set_memory_source(v1::MEMORY_SOURCE_SELF_CPU_MEMORY_USAGE);
      break;
  }
  for (const OperatorMemoryRow& row :
       OperatorMemoryRows(trace, in.links, contributions, in.grouping)) {
    v1::OperatorMemory* out = profile.add_operator_memory();
    out->set_name(std::string(trace.strings.Get(row.name)));
    out->set_input_shapes(std::string(trace.strings.Get(row.input_shapes)));
    out->set_device(contributions.devices[static_cast<size_t>(row.device)]);
    out->set_calls(row.calls);
    out->set_self_allocation_count(row.self_allocation_count);
    out->set_self_allocation_bytes(row.self_allocation_bytes);
    out->set_self_increase_bytes(row.self_increase_bytes);
    out->set_allocation_count(row.allocation_count);
    out->set_allocation_bytes(row.allocation_bytes);
    out->set_increase_bytes(row.increase_bytes);
    FillStepSamples(row.steps, *out->mutable_step_samples());
  }
  for (const ModuleMemoryRow& row : ModuleMemoryRows(in.tree, contributions)) {
    v1::ModuleMemory* out = profile.add_module_memory();
    out->set_path(paths[row.node]);
    out->set_name(in.tree.nodes[row.node].name);
    out->set_kind(ProtoModuleNodeKind(in.tree.nodes[row.node].kind));
    out->set_device(contributions.devices[static_cast<size_t>(row.device)]);
    out->set_allocation_count(row.allocation_count);
    out->set_allocation_bytes(row.allocation_bytes);
    out->set_increase_bytes(row.increase_bytes);
    out->set_peak_allocated_bytes(row.peak_allocated_bytes);
    FillStepSamples(row.steps, *out->mutable_step_samples());
  }
}

}  // namespace profdiff::analysis
