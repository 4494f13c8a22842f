#include "analysis/worker_profile.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <system_error>
#include <thread>

#include "analysis/collective_calls.h"
#include "analysis/communication_view.h"
#include "analysis/deferred_node_tables.h"
#include "analysis/event_links.h"
#include "analysis/gpu_metrics.h"
#include "analysis/hta_step_ops.h"
#include "analysis/memory_profile.h"
#include "analysis/memory_view.h"
#include "analysis/module_node_rows.h"
#include "analysis/module_tree.h"
#include "analysis/profile_limits.h"
#include "analysis/step_breakdown.h"
#include "analysis/step_of_event.h"
#include "analysis/steps.h"
#include "base/str_cat.h"
#include "trace/worker_info.h"

namespace profdiff::analysis {
namespace {

double Us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }
double Us(double ns) { return ns / 1000.0; }

void FillWorkerInfo(const trace::Trace& trace, const WorkerIdentity& identity,
                    v1::WorkerInfo& info) {
  info = trace::WorkerInfoOf(trace);
  info.set_run(identity.run);
  info.set_worker_name(identity.worker_name);
  // The reader only knows these two formats; CUPTI spans say so themselves.
  if (info.source_format() == v1::SOURCE_FORMAT_UNSPECIFIED) {
    info.set_source_format(v1::SOURCE_FORMAT_KINETO_JSON);
  }
  // The OS pid of the process: the pid of its first operator.
  for (size_t i = 0; i < trace.events.size(); ++i) {
    if (trace.events.kind[i] == trace::EventKind::kCpuOp &&
        trace.events.pid[i] > 0) {
      info.set_pid(trace.events.pid[i]);
      break;
    }
  }
}

// Sets the roles of `s` to those of `b` divided by `steps` (1 for one step, n
// for a mean).
void SetBreakdown(const StepBreakdown& b, double steps, v1::StepStats& s) {
  auto role = [&](StepRole r) {
    return Us(static_cast<double>(b.role_ns[static_cast<int>(r)]) / steps);
  };
  s.set_kernel_us(role(StepRole::kKernel));
  s.set_memcpy_us(role(StepRole::kMemcpy));
  s.set_memset_us(role(StepRole::kMemset));
  s.set_communication_us(role(StepRole::kCommunication));
  s.set_runtime_us(role(StepRole::kRuntime));
  s.set_dataloader_us(role(StepRole::kDataLoader));
  s.set_cpu_exec_us(role(StepRole::kCpuExec));
  s.set_other_us(role(StepRole::kOther));
}

void FillSteps(const StepWindows& steps,
               const std::vector<StepBreakdown>& breakdowns,
               v1::WorkerProfile& profile) {
  StepBreakdown sum;
  int64_t duration_sum = 0;
  for (size_t s = 0; s < steps.kept.size(); ++s) {
    const StepWindow& w = steps.kept[s];
    v1::StepStats* stats = profile.add_steps();
    stats->set_step(w.number);
    stats->set_start_us(Us(w.start_ns));
    stats->set_duration_us(Us(w.end_ns - w.start_ns));
    stats->set_host_start_us(Us(w.host_start_ns));
    stats->set_host_duration_us(Us(w.host_end_ns - w.host_start_ns));
    stats->set_device_activity_count(w.device_activity_count);
    SetBreakdown(breakdowns[s], 1, *stats);
    for (int r = 0; r < kStepRoleCount; ++r)
      sum.role_ns[r] += breakdowns[s].role_ns[r];
    duration_sum += w.end_ns - w.start_ns;
  }
  v1::StepStats* average = profile.mutable_average_step();
  average->set_step(-1);
  const double n = static_cast<double>(std::max<size_t>(steps.kept.size(), 1));
  // docs/semantics.md §3: the run value is the mean over kept steps.
  average->set_duration_us(Us(static_cast<double>(duration_sum) / n));
  SetBreakdown(sum, n, *average);
  profile.set_steps_dropped(steps.dropped);
}

void FillOperatorRows(
    const trace::Trace& trace, const std::vector<OperatorRow>& rows,
    google::protobuf::RepeatedPtrField<v1::OperatorStats>& out) {
  out.Reserve(static_cast<int>(rows.size()));
  for (const OperatorRow& row : rows) {
    v1::OperatorStats* stats = out.Add();
    stats->set_name(std::string(trace.strings.Get(row.name)));
    stats->set_input_shapes(std::string(trace.strings.Get(row.input_shapes)));
    stats->set_calls(row.calls);
    stats->set_host_self_us(Us(row.host_self_ns));
    stats->set_host_total_us(Us(row.host_total_ns));
    stats->set_device_self_us(Us(row.device_self_ns));
    stats->set_device_total_us(Us(row.device_total_ns));
    for (const OperatorStepSample& step : row.steps) {
      v1::OperatorStepSample* sample = stats->add_step_samples();
      sample->set_step_index(step.step);
      sample->set_calls(step.calls);
      sample->set_host_self_us(Us(step.host_self_ns));
      sample->set_host_total_us(Us(step.host_total_ns));
      sample->set_device_self_us(Us(step.device_self_ns));
      sample->set_device_total_us(Us(step.device_total_ns));
    }
  }
}

void FillKernelRows(const trace::Trace& trace,
                    const std::vector<KernelRow>& rows,
                    google::protobuf::RepeatedPtrField<v1::KernelStats>& out) {
  out.Reserve(static_cast<int>(rows.size()));
  for (const KernelRow& row : rows) {
    v1::KernelStats* stats = out.Add();
    stats->set_name(std::string(trace.strings.Get(row.name)));
    stats->set_op_name(std::string(trace.strings.Get(row.op_name)));
    stats->set_calls(row.calls);
    stats->set_total_us(Us(row.total_ns));
    stats->set_mean_us(Us(static_cast<double>(row.total_ns) / row.calls));
    stats->set_max_us(Us(row.max_ns));
    stats->set_min_us(Us(row.min_ns));
    if (row.total_ns > 0) {
      stats->set_blocks_per_sm(row.blocks_per_sm_weighted /
                               static_cast<double>(row.total_ns));
      stats->set_achieved_occupancy_pct(row.occupancy_weighted /
                                        static_cast<double>(row.total_ns));
    }
    stats->set_blocks_per_sm_missing(!row.has_blocks_per_sm);
    stats->set_occupancy_missing(!row.has_occupancy);
    for (const KernelStepSample& step : row.steps) {
      v1::KernelStepSample* sample = stats->add_step_samples();
      sample->set_step_index(step.step);
      sample->set_calls(step.calls);
      sample->set_total_us(Us(step.total_ns));
    }
  }
}

// Context for turning the module tree into nested ModuleNode messages.
struct ModuleFiller {
  const trace::Trace& trace;
  const ModuleTree& tree;
  // The root's samples: each kept step's host duration and the device time
  // launched in it.
  const std::vector<ModuleStepSample>& root_steps;
  // Each node's operator and kernel tables too, from these; null: none.
  ModuleNodeRows* node_rows;

  void Fill(uint32_t n, const std::string& parent_path,
            v1::ModuleNode& out) const {
    const ModuleTreeNode& node = tree.nodes[n];
    out.set_name(n == 0 ? "(root)" : node.name);
    const std::string path = n == 0 ? ""
                             : parent_path.empty()
                                 ? node.name
                                 : parent_path + "/" + node.name;
    out.set_path(path);
    out.set_kind(ProtoModuleNodeKind(node.kind));
    out.set_calls(node.calls);
    out.set_host_us(Us(node.host_ns));
    out.set_host_self_us(Us(node.host_self_ns));
    out.set_device_us(Us(node.device_ns));
    out.set_device_self_us(Us(node.device_self_ns));
    out.set_device_union_us(Us(node.device_union_ns));
    // docs/semantics.md §7: compare device time where the node ran device work,
    // host time otherwise.
    out.set_compare_us(node.device_ns > 0 ? Us(node.device_ns)
                                          : Us(node.host_ns));
    out.set_backward_host_us(Us(node.backward_host_ns));
    out.set_backward_device_us(Us(node.backward_device_ns));
    for (const ModuleStepSample& step : n == 0 ? root_steps : node.steps) {
      v1::ModuleStepSample* sample = out.add_step_samples();
      sample->set_step_index(step.step);
      sample->set_calls(step.calls);
      sample->set_host_us(Us(step.host_ns));
      sample->set_device_us(Us(step.device_ns));
      sample->set_backward_host_us(Us(step.backward_host_ns));
      sample->set_backward_device_us(Us(step.backward_device_ns));
    }
    if (node_rows != nullptr && n != 0)
      FillModuleNodeTables(trace, node, *node_rows, out);
    for (uint32_t child : node.children) Fill(child, path, *out.add_children());
  }
};

// Every node's tables into `out` (the tree ModuleFiller filled without them).
void FillEveryNodesTables(const trace::Trace& trace, const ModuleTree& tree,
                          uint32_t n, ModuleNodeRows& node_rows,
                          v1::ModuleNode& out) {
  if (n != 0) FillModuleNodeTables(trace, tree.nodes[n], node_rows, out);
  const std::vector<uint32_t>& children = tree.nodes[n].children;
  for (size_t c = 0; c < children.size(); ++c) {
    FillEveryNodesTables(trace, tree, children[c], node_rows,
                         *out.mutable_children(static_cast<int>(c)));
  }
}

}  // namespace

namespace worker_profile_internal {

size_t NodeTablesBytesBound(const trace::Trace& trace, const EventLinks& links,
                            const ModuleTree& tree, size_t kept_steps) {
  // Over every event, not only the ones a table takes: a bound, and cheap.
  const trace::EventTable& t = trace.events;
  size_t operator_text = sizeof(kOtherName);
  size_t kernel_text = sizeof(kOtherName);
  for (uint32_t e = 0; e < t.size(); ++e) {
    const size_t name = trace.strings.Get(t.name[e]).size();
    if (t.kind[e] == trace::EventKind::kKernel) {
      kernel_text = std::max(
          kernel_text,
          name + trace.strings
                     .Get(GroupedOpName(t, links, kModuleNodeKernelGrouping, e))
                     .size());
    } else {
      operator_text = std::max(
          operator_text,
          name + trace.strings
                     .Get(GroupedShapes(t, kModuleNodeOperatorGrouping, e))
                     .size());
    }
  }
  // Tags, length prefixes and every number at its widest (a varint of 10
  // bytes, a double of 8 and its tag).
  constexpr size_t kOperatorRowBytes = 6 + 2 * 6 + 11 + 4 * 9;
  constexpr size_t kOperatorSampleBytes = 6 + 2 * 11 + 4 * 9;
  constexpr size_t kKernelRowBytes = 6 + 2 * 6 + 11 + 6 * 9 + 2 * 2;
  constexpr size_t kKernelSampleBytes = 6 + 2 * 11 + 9;
  const size_t operator_row =
      kOperatorRowBytes + operator_text + kept_steps * kOperatorSampleBytes;
  const size_t kernel_row =
      kKernelRowBytes + kernel_text + kept_steps * kKernelSampleBytes;
  size_t bytes = 4;  // the root's length prefix
  for (size_t n = 1; n < tree.nodes.size(); ++n) {
    const ModuleTreeNode& node = tree.nodes[n];
    // A node's own length prefix grows by at most 4 bytes.
    bytes +=
        4 +
        std::min(node.operators.size(), kMaxNodeTableRows + 1) * operator_row +
        std::min(node.kernels.size(), kMaxNodeTableRows + 1) * kernel_row;
  }
  return bytes;
}

}  // namespace worker_profile_internal

namespace {

void FillBackwardLinking(const BackwardAttribution& b,
                         v1::BackwardLinking& out) {
  out.set_roots(b.roots);
  out.set_linked_by_flow(b.linked_by_flow);
  out.set_linked_by_sequence(b.linked_by_sequence);
  out.set_accumulate_grad_roots(b.accumulate_grad_roots);
  out.set_attributed(b.attributed);
  out.set_outside_modules(b.outside_modules);
  out.set_not_attributed(b.not_attributed);
  out.set_unlinked(b.unlinked);
  out.set_flows_unused(b.flows_unused);
}

void ClearNodeTables(v1::ModuleNode& node) {
  node.clear_operators();
  node.clear_kernels();
  for (v1::ModuleNode& child : *node.mutable_children()) ClearNodeTables(child);
}

v1::ModuleTreeSource ProtoSource(ModuleTreeSource source) {
  switch (source) {
    case ModuleTreeSource::kPythonModules:
      return v1::MODULE_TREE_SOURCE_PYTHON_MODULES;
    case ModuleTreeSource::kAnnotations:
      return v1::MODULE_TREE_SOURCE_ANNOTATIONS;
    case ModuleTreeSource::kOperators:
      return v1::MODULE_TREE_SOURCE_OPERATORS;
    case ModuleTreeSource::kUserAnnotations:
      return v1::MODULE_TREE_SOURCE_USER_ANNOTATIONS;
  }
  return v1::MODULE_TREE_SOURCE_UNSPECIFIED;
}

// The step, GPU, HTA, memory, operator and kernel views: computed on a helper
// thread when the options allow one, while the module tree and communication
// views are built on the caller's.
struct StepViews {
  std::vector<StepBreakdown> breakdowns;
  std::vector<DeviceGpuMetrics> devices;
  std::vector<HtaStepOps> hta_steps;
  MemoryEvents memory_events;
  std::vector<DeviceMemory> memory;
  std::vector<OperatorRow> operator_rows;
  std::vector<KernelRow> kernel_rows;
};

void FillDevices(const std::vector<DeviceGpuMetrics>& devices,
                 v1::WorkerProfile& profile) {
  double utilization_sum = 0;
  double sm_sum = 0;
  double occupancy_sum = 0;
  int sm_devices = 0;
  int occupancy_devices = 0;
  for (const DeviceGpuMetrics& d : devices) {
    v1::DeviceMetrics* metrics = profile.add_devices();
    metrics->set_device(d.device);
    metrics->set_gpu_utilization(d.gpu_utilization);
    metrics->set_sm_efficiency(d.sm_efficiency);
    metrics->set_achieved_occupancy_pct(d.achieved_occupancy_pct);
    metrics->set_kernel_us(Us(d.kernel_busy_ns));
    metrics->set_has_sm_efficiency(d.has_sm_efficiency);
    metrics->set_has_occupancy(d.has_occupancy);
    utilization_sum += d.gpu_utilization;
    if (d.has_sm_efficiency) {
      sm_sum += d.sm_efficiency;
      ++sm_devices;
    }
    if (d.has_occupancy) {
      occupancy_sum += d.achieved_occupancy_pct;
      ++occupancy_devices;
    }
  }
  if (!devices.empty())
    profile.set_gpu_utilization(utilization_sum /
                                static_cast<double>(devices.size()));
  if (sm_devices > 0) profile.set_sm_efficiency(sm_sum / sm_devices);
  if (occupancy_devices > 0)
    profile.set_achieved_occupancy_pct(occupancy_sum / occupancy_devices);
}

void FillCollectiveCalls(const StepWindows& steps,
                         const CollectiveCalls& collectives,
                         v1::WorkerProfile& profile) {
  for (size_t s = 0; s < collectives.steps.size(); ++s) {
    v1::StepStats* step = profile.mutable_steps(static_cast<int>(s));
    step->set_collective_us(Us(collectives.steps[s].collective_ns));
    step->set_collective_exposed_us(Us(collectives.steps[s].exposed_ns));
    v1::StepStats* average = profile.mutable_average_step();
    const double n = static_cast<double>(collectives.steps.size());
    average->set_collective_us(average->collective_us() +
                               step->collective_us() / n);
    average->set_collective_exposed_us(average->collective_exposed_us() +
                                       step->collective_exposed_us() / n);
  }
  for (const CollectiveCallRow& row : collectives.calls) {
    v1::CollectiveCall* call = profile.add_collective_calls();
    call->set_collective(row.collective);
    call->set_process_group(row.process_group);
    call->set_process_group_ranks(row.process_group_ranks);
    call->set_group_size(row.group_size);
    call->set_dtype(row.dtype);
    call->set_in_elements(row.in_elements);
    call->set_out_elements(row.out_elements);
    call->set_bytes(row.bytes);
    call->set_size_missing(row.size_missing);
    call->set_step_index(row.step_index);
    if (row.step_index >= 0)
      call->set_step(steps.kept[static_cast<size_t>(row.step_index)].number);
    call->set_ordinal(row.ordinal);
    call->set_duration_us(Us(row.duration_ns));
    call->set_on_device(row.on_device);
  }
}

}  // namespace

void FillModuleNodeTables(const trace::Trace& trace, const ModuleTreeNode& node,
                          ModuleNodeRows& node_rows, v1::ModuleNode& out) {
  FillOperatorRows(trace, node_rows.Operators(node.operators),
                   *out.mutable_operators());
  FoldOperatorRows(*out.mutable_operators(), kMaxNodeTableRows);
  // By launching operator: what a module's kernels replaced is said per
  // operator (differ/findings/replacements.h).
  FillKernelRows(trace, node_rows.Kernels(node.kernels),
                 *out.mutable_kernels());
  FoldKernelRows(*out.mutable_kernels(), kMaxNodeTableRows);
}

namespace {

// BuildWorkerProfile; with `deferred` (and options.module_tables), the nodes'
// tables go to `*deferred` instead, when the bound allows.
v1::WorkerProfile BuildProfile(const trace::Trace& trace,
                               const WorkerIdentity& identity,
                               const ProfileOptions& options,
                               const std::shared_ptr<const trace::Trace>* kept,
                               std::unique_ptr<DeferredNodeTables>* deferred) {
  const bool defer = options.module_tables && deferred != nullptr;
  v1::WorkerProfile profile;
  FillWorkerInfo(trace, identity, *profile.mutable_worker());
  profile.set_span_count(identity.span_count);
  // The events of the file, frames the reader left out included.
  profile.set_event_count(static_cast<int64_t>(trace.events.size()) +
                          trace.counters.python_frames_left_out);

  EventLinks links = LinkEvents(trace);
  profile.set_runtime_calls_linked_by_containment(
      links.runtime_linked_by_containment);
  profile.set_runtime_linking(links.runtime_linked_by_containment > 0
                                  ? v1::RUNTIME_LINKING_CONTAINMENT
                                  : v1::RUNTIME_LINKING_EXTERNAL_ID);
  const StepWindows steps = FindSteps(trace, links);
  std::vector<int32_t> step_of_event = AssignEventsToSteps(trace, links, steps);
  OperatorTimes times = ComputeOperatorTimes(trace, links);

  StepViews views;
  auto compute_step_views = [&] {
    views.breakdowns = ComputeStepBreakdowns(trace, links, steps);
    views.devices = ComputeGpuMetrics(trace, links, steps);
    views.hta_steps = ComputeHtaStepOps(trace, links);
    views.memory_events = CollectMemoryEvents(trace, links, step_of_event);
    views.memory = ComputeMemory(trace, views.memory_events, steps);
    OperatorTable operators(trace, times, options.operator_grouping,
                            &step_of_event);
    for (uint32_t op : links.operators) operators.Add(op);
    views.operator_rows = operators.Rows();
    KernelTable kernels(trace, links, options.kernel_grouping, &step_of_event);
    for (uint32_t d : links.device_activities) {
      if (trace.events.kind[d] == trace::EventKind::kKernel) kernels.Add(d);
    }
    views.kernel_rows = kernels.Rows();
  };
  std::jthread helper;
  if (options.threads > 1) {
    try {
      helper = std::jthread(compute_step_views);
    } catch (const std::system_error&) {
      // No thread to be had: computed below, on this one.
    }
  }

  // The module tree, on this thread: the largest single piece.
  ModuleTree tree = BuildModuleTree(trace, links, &step_of_event, &steps);
  profile.set_module_source(ProtoSource(tree.source));
  profile.set_module_annotation_nodes(tree.user_annotation_nodes);
  FillBackwardLinking(tree.backward, *profile.mutable_backward_linking());
  std::vector<ModuleStepSample> root_steps(steps.kept.size());
  for (size_t s = 0; s < steps.kept.size(); ++s) {
    root_steps[s].step = static_cast<int32_t>(s);
    root_steps[s].calls = 1;
    root_steps[s].host_ns =
        steps.kept[s].host_end_ns - steps.kept[s].host_start_ns;
  }
  for (uint32_t d : links.device_activities) {
    if (step_of_event[d] != kNoStep)
      root_steps[step_of_event[d]].device_ns += trace.events.duration_ns[d];
  }
  // Made only where the tables are made here: deferred tables have their own.
  std::optional<ModuleNodeRows> node_rows;
  if (options.module_tables && !defer)
    node_rows.emplace(trace, links, times, step_of_event);
  ModuleFiller{trace, tree, root_steps, node_rows ? &*node_rows : nullptr}.Fill(
      0, "", *profile.mutable_modules());
  if (tree.events_below_max_depth > 0) {
    profile.add_warnings(
        base::StrCat("the module tree is deeper than ", kMaxModuleDepth,
                     " levels: ", tree.events_below_max_depth,
                     " calls nested deeper count in their level-",
                     kMaxModuleDepth, " ancestor"));
  }
  if (tree.names_past_max_nodes > 0) {
    profile.add_warnings(
        base::StrCat("the module tree has more than ", kMaxModuleNodes,
                     " nodes: ", tree.names_past_max_nodes,
                     " more are summed in \"", kOtherName, "\" nodes"));
  }
  for (const CollectiveRow& c : ComputeCommunication(trace, links, times)) {
    v1::CollectiveStats* stats = profile.add_communication();
    stats->set_name(c.name);
    stats->set_calls(c.calls);
    stats->set_host_us(Us(c.host_ns));
    stats->set_device_us(Us(c.device_ns));
    stats->set_in_elements(c.in_elements);
    stats->set_out_elements(c.out_elements);
  }

  if (helper.joinable()) {
    helper.join();
  } else {
    compute_step_views();
  }
  FillSteps(steps, views.breakdowns, profile);
  FillCollectiveCalls(
      steps, ComputeCollectiveCalls(trace, links, steps, step_of_event),
      profile);
  FillDevices(views.devices, profile);
  profile.set_operator_grouping(GroupingOf(options.operator_grouping));
  FillOperatorRows(trace, views.operator_rows, *profile.mutable_operators());
  if (const size_t folded =
          FoldOperatorRows(*profile.mutable_operators(), kMaxTableRows)) {
    profile.add_warnings(base::StrCat("the operator table has more than ",
                                      kMaxTableRows, " rows: the lightest ",
                                      folded, " are summed in one \"",
                                      kOtherName, "\" row"));
  }
  profile.set_kernel_grouping(GroupingOf(options.kernel_grouping));
  FillKernelRows(trace, views.kernel_rows, *profile.mutable_kernels());
  if (const size_t folded =
          FoldKernelRows(*profile.mutable_kernels(), kMaxTableRows)) {
    profile.add_warnings(base::StrCat("the kernel table has more than ",
                                      kMaxTableRows, " rows: the lightest ",
                                      folded, " are summed in one \"",
                                      kOtherName, "\" row"));
  }
  for (const HtaStepOps& step : views.hta_steps) {
    v1::HtaStep* out = profile.add_hta_steps();
    out->set_step(step.step);
    for (const HtaOpRow& row : step.ops) {
      v1::HtaOpStats* op = out->add_ops();
      op->set_name(std::string(trace.strings.Get(row.name)));
      op->set_device(row.device);
      op->set_count(row.count);
      op->set_total_duration_us(row.total_duration_us);
    }
  }
  FillMemory({trace, links, step_of_event, tree, views.memory_events,
              views.memory, options.operator_grouping},
             profile);
  if (defer) {
    // Deferred only where the tables could not take the profile past the
    // limit below, whose verdict must not change.
    if (profile.ByteSizeLong() + worker_profile_internal::NodeTablesBytesBound(
                                     trace, links, tree, steps.kept.size()) <=
        kMaxProfileBytes) {
      *deferred = std::make_unique<DeferredNodeTables>(
          *kept, std::move(links), std::move(times), std::move(step_of_event),
          std::move(tree));
      return profile;
    }
    ModuleNodeRows rows(trace, links, times, step_of_event);
    FillEveryNodesTables(trace, tree, 0, rows, *profile.mutable_modules());
  }
  if (profile.ByteSizeLong() > kMaxProfileBytes) {
    ClearNodeTables(*profile.mutable_modules());
    profile.add_warnings(base::StrCat(
        "the profile is over ", kMaxProfileBytes >> 20,
        " MiB: its module nodes carry no operator and kernel tables"));
  }
  return profile;
}

}  // namespace

v1::WorkerProfile BuildWorkerProfile(const trace::Trace& trace,
                                     const WorkerIdentity& identity,
                                     const ProfileOptions& options) {
  return BuildProfile(trace, identity, options, nullptr, nullptr);
}

v1::WorkerProfile BuildWorkerProfile(
    const std::shared_ptr<const trace::Trace>& trace,
    const WorkerIdentity& identity, const ProfileOptions& options,
    std::unique_ptr<DeferredNodeTables>& deferred) {
  deferred.reset();
  return BuildProfile(*trace, identity, options, &trace, &deferred);
}

}  // namespace profdiff::analysis
