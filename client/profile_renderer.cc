#include "client/profile_renderer.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <string_view>
#include <utility>

#include <absl/strings/str_format.h>
#include <absl/strings/str_split.h>

#include "base/number_format.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "client/json_output.h"
#include "client/name_columns.h"
#include "client/run_communication_renderer.h"
#include "client/text_table.h"
#include "differ/row_order.h"

namespace profdiff::client {
using base::kBytesPerGiB;
using base::kBytesPerMiB;
using base::Micros;
using base::Percent;
namespace {

std::string DeviceLine(const v1::WorkerProfile& w) {
  if (w.worker().devices().empty())
    return w.devices().empty() ? "CPU only" : "GPU (no deviceProperties)";
  // The device the worker's kernels ran on, else the first listed.
  int64_t used =
      w.devices().empty() ? w.worker().devices(0).id() : w.devices(0).device();
  for (const v1::DeviceProperties& d : w.worker().devices()) {
    if (d.id() == used) {
      return absl::StrFormat("%s (%.1f GiB)", d.name(),
                             d.total_global_mem_bytes() / kBytesPerGiB);
    }
  }
  return w.worker().devices(0).name();
}

std::string WorkerHeader(const v1::RunProfile& run, const v1::WorkerProfile& w,
                         size_t line_width) {
  std::string header = absl::StrFormat(
      "run %s · worker %s (rank %d of %d%s) · %s · steps kept %d, dropped %d · "
      "%d span%s, %d events",
      run.run(), w.worker().worker_name(), w.worker().rank(),
      w.worker().world_size(),
      w.worker().backend().empty() ? "" : ", " + w.worker().backend(),
      DeviceLine(w), w.steps_size(), w.steps_dropped(), w.span_count(),
      w.span_count() == 1 ? "" : "s", w.event_count());
  if (w.worker().unknown_category_count() > 0 ||
      w.worker().dropped_event_count() > 0) {
    header += absl::StrFormat(
        " · %d events of unknown category kept, %d not kept",
        w.worker().unknown_category_count(), w.worker().dropped_event_count());
  }
  if (w.runtime_linking() == v1::RUNTIME_LINKING_CONTAINMENT) {
    header += absl::StrFormat(" · %d runtime calls linked by containment",
                              w.runtime_calls_linked_by_containment());
  }
  return WrapWords("", header, line_width);
}

void AddBreakdownRows(const v1::StepStats& s, TextTable& table) {
  const double total = s.duration_us();
  const std::pair<const char*, double> rows[] = {
      {"Kernel", s.kernel_us()},     {"Memcpy", s.memcpy_us()},
      {"Memset", s.memset_us()},     {"Communication", s.communication_us()},
      {"Runtime", s.runtime_us()},   {"DataLoader", s.dataloader_us()},
      {"CPU Exec", s.cpu_exec_us()}, {"Other", s.other_us()},
  };
  table.AddRow({"Step time (avg)", Micros(total), "100.0%"});
  for (const auto& [name, us] : rows)
    table.AddRow({std::string("  ") + name, Micros(us), Percent(us, total)});
}

TextTable OverviewTable(const v1::WorkerProfile& w) {
  TextTable table({{"metric", Align::kLeft}, {"value (us)"}, {"share"}});
  AddBreakdownRows(w.average_step(), table);
  const bool gpu = !w.devices().empty() || !w.worker().devices().empty();
  table.AddRow(
      {"GPU utilization", "",
       gpu ? absl::StrFormat("%.1f%%", 100 * w.gpu_utilization()) : "-"});
  // As the diff prints them: "-" where the trace does not record the metric,
  // never 0.
  bool sm = false;
  bool occupancy = false;
  for (const v1::DeviceMetrics& d : w.devices()) {
    sm = sm || d.has_sm_efficiency();
    occupancy = occupancy || d.has_occupancy();
  }
  table.AddRow({"Est. SM efficiency", "",
                sm ? absl::StrFormat("%.1f%%", 100 * w.sm_efficiency()) : "-"});
  table.AddRow({"Est. achieved occupancy", "",
                occupancy
                    ? absl::StrFormat("%.1f%%", w.achieved_occupancy_pct())
                    : "-"});
  return table;
}

TextTable StepsTable(const v1::WorkerProfile& w) {
  // Left out first to fit the terminal: the small categories, then the start.
  TextTable table({{"step"},
                   {"start (us)", Align::kRight, 3},
                   {"duration (us)"},
                   {"kernel"},
                   {"memcpy", Align::kRight, 5},
                   {"memset", Align::kRight, 5},
                   {"communication"},
                   {"runtime", Align::kRight, 4},
                   {"dataloader", Align::kRight, 5},
                   {"cpu exec"},
                   {"other", Align::kRight, 4}});
  for (const v1::StepStats& s : w.steps()) {
    table.AddRow({base::StrCat(s.step()), Micros(s.start_us()),
                  Micros(s.duration_us()), Micros(s.kernel_us()),
                  Micros(s.memcpy_us()), Micros(s.memset_us()),
                  Micros(s.communication_us()), Micros(s.runtime_us()),
                  Micros(s.dataloader_us()), Micros(s.cpu_exec_us()),
                  Micros(s.other_us())});
  }
  return table;
}

// "5 kept steps": what the per-step values are divided by (at least one, as
// the differ's slots: a trace without steps is one).
std::string KeptSteps(const v1::WorkerProfile& w) {
  const int steps = std::max(w.steps_size(), 1);
  return base::StrCat(steps, steps == 1 ? " kept step" : " kept steps");
}

// Calls per step print as a count where they are one ("5", "0.2").
std::string Calls(double calls) { return absl::StrFormat("%.4g", calls); }

TextTable OperatorsTable(const v1::WorkerProfile& w, bool per_step) {
  const bool shapes = w.operator_grouping() == v1::GROUPING_NAME_AND_SHAPE;
  std::vector<TextTable::Column> columns = {{"operator", Align::kLeft}};
  if (shapes) columns.push_back({"input shapes", Align::kLeft});
  // Left out first to fit the terminal: the self times, then the calls.
  columns.push_back({"calls", Align::kRight, 2});
  columns.push_back({"host self (us)", Align::kRight, 3});
  columns.push_back({"host total (us)"});
  columns.push_back({"device self (us)", Align::kRight, 3});
  columns.push_back({"device total (us)"});
  TextTable table(columns);
  for (const v1::OperatorStats& r : w.operators()) {
    std::vector<std::string> row = {r.name()};
    if (shapes) row.push_back(r.input_shapes());
    const v1::OperatorPerStep& s = r.per_step();
    for (std::string cell :
         per_step
             ? std::initializer_list<std::string>{Calls(s.calls()),
                                                  Micros(s.host_self_us()),
                                                  Micros(s.host_total_us()),
                                                  Micros(s.device_self_us()),
                                                  Micros(s.device_total_us())}
             : std::initializer_list<std::string>{
                   base::StrCat(r.calls()), Micros(r.host_self_us()),
                   Micros(r.host_total_us()), Micros(r.device_self_us()),
                   Micros(r.device_total_us())}) {
      row.push_back(std::move(cell));
    }
    table.AddRow(std::move(row));
  }
  return table;
}

TextTable KernelsTable(const v1::WorkerProfile& w, bool per_step) {
  const bool by_op = w.kernel_grouping() == v1::GROUPING_NAME_AND_OP;
  std::vector<TextTable::Column> columns = {KernelNameColumn("kernel")};
  if (by_op) columns.push_back({"operator", Align::kLeft});
  // Left out first to fit the terminal: the launch figures, then max and
  // min, then the mean.
  columns.push_back({"calls"});
  columns.push_back({"total (us)"});
  columns.push_back({"mean (us)", Align::kRight, 2});
  columns.push_back({"max (us)", Align::kRight, 3});
  columns.push_back({"min (us)", Align::kRight, 3});
  columns.push_back({"blocks/SM", Align::kRight, 4});
  columns.push_back({"occupancy %", Align::kRight, 4});
  TextTable table(columns);
  for (const v1::KernelStats& r : w.kernels()) {
    std::vector<std::string> row = {r.name()};
    if (by_op) row.push_back(r.op_name());
    for (std::string cell :
         {per_step ? Calls(r.per_step().calls()) : base::StrCat(r.calls()),
          Micros(per_step ? r.per_step().total_us() : r.total_us()),
          Micros(r.mean_us()), Micros(r.max_us()), Micros(r.min_us()),
          r.blocks_per_sm_missing()
              ? std::string("-")
              : absl::StrFormat("%.2f", r.blocks_per_sm()),
          r.occupancy_missing()
              ? std::string("-")
              : absl::StrFormat("%.1f", r.achieved_occupancy_pct())}) {
      row.push_back(std::move(cell));
    }
    table.AddRow(std::move(row));
  }
  return table;
}

// `backward`: add each forward module's backward time, in the unit of its
// compare value.
void AddModuleRows(const v1::ModuleNode& node, int depth, bool backward,
                   bool per_step, TextTable& table) {
  if (depth >= 0) {
    // The node's values as stored (totals) or per kept step.
    v1::ModulePerStep v = node.per_step();
    if (!per_step) {
      v.set_calls(node.calls());
      v.set_host_us(node.host_us());
      v.set_host_self_us(node.host_self_us());
      v.set_device_us(node.device_us());
      v.set_device_self_us(node.device_self_us());
      v.set_compare_us(node.compare_us());
      v.set_backward_host_us(node.backward_host_us());
      v.set_backward_device_us(node.backward_device_us());
    }
    std::vector<std::string> row = {
        std::string(2 * static_cast<size_t>(depth), ' ') + node.name(),
        Calls(v.calls()),
        Micros(v.host_us()),
        Micros(v.host_self_us()),
        Micros(v.device_us()),
        Micros(v.device_self_us()),
        Micros(v.compare_us())};
    if (backward) {
      const bool device = node.device_us() > 0;
      const double us = device ? v.backward_device_us() : v.backward_host_us();
      row.push_back(node.kind() == v1::MODULE_NODE_KIND_MODULE &&
                            (v.backward_host_us() > 0 || us > 0)
                        ? Micros(us)
                        : "-");
    }
    table.AddRow(std::move(row));
  }
  for (const v1::ModuleNode& child : node.children())
    AddModuleRows(child, depth + 1, backward, per_step, table);
}

TextTable ModulesTable(const v1::WorkerProfile& w, bool per_step) {
  const bool backward = w.backward_linking().attributed() > 0;
  // Left out first to fit the terminal: the self times, then the calls.
  std::vector<TextTable::Column> columns = {
      TreeNameColumn("module"),
      {"calls", Align::kRight, 2},
      {"host (us)"},
      {"host self (us)", Align::kRight, 3},
      {"device (us)"},
      {"device self (us)", Align::kRight, 3},
      {"compare (us)"}};
  if (backward) columns.push_back({"backward (us)"});
  TextTable table(std::move(columns));
  AddModuleRows(w.modules(), -1, backward, per_step, table);
  return table;
}

// One line on what the backward pass became in the tree (docs/semantics.md §7).
std::string BackwardLine(const v1::WorkerProfile& w, size_t line_width) {
  const v1::BackwardLinking& b = w.backward_linking();
  if (!b.not_attributed().empty())
    return WrapWords("backward not attributed: ", b.not_attributed(),
                     line_width);
  return WrapWords(
      "backward: ",
      base::StrCat(b.linked_by_flow() + b.linked_by_sequence(), " of ",
                   b.roots(), " backward roots linked to their forward op (",
                   b.linked_by_flow(), " by fwdbwd flows, ",
                   b.linked_by_sequence(), " by sequence numbers), ",
                   b.outside_modules(), " of them to an op in no module"),
      line_width);
}

TextTable MemoryTable(const v1::WorkerProfile& w) {
  TextTable table({{"device", Align::kLeft},
                   {"peak allocated (MiB)"},
                   {"avg allocated (MiB)"},
                   {"peak reserved (MiB)"},
                   {"events"}});
  for (const v1::MemoryStats& m : w.memory()) {
    table.AddRow(
        {m.device(),
         absl::StrFormat("%.1f", m.peak_allocated_bytes() / kBytesPerMiB),
         absl::StrFormat("%.1f", m.average_allocated_bytes() / kBytesPerMiB),
         absl::StrFormat("%.1f", m.peak_reserved_bytes() / kBytesPerMiB),
         base::StrCat(m.event_count())});
  }
  return table;
}

// Why a worker has no memory rows.
const char* NoMemoryText(v1::MemorySource source) {
  return source == v1::MEMORY_SOURCE_SELF_CPU_MEMORY_USAGE
             ? "only the operators' Self CPU Memory Usage was recorded (no "
               "curve, no peak; `profdiff diff --view memory` compares it)"
             : "none recorded: the trace has no [memory] events "
               "(torch.profiler records them with profile_memory=True)";
}

// "nn.Module events and 12 user annotations": which sources built the tree.
std::string ModuleSourceText(const v1::WorkerProfile& w) {
  const int32_t annotations = w.module_annotation_nodes();
  const std::string user = annotations > 0
                               ? base::StrCat(annotations, " user annotation",
                                              annotations == 1 ? "" : "s")
                               : "";
  switch (w.module_source()) {
    case v1::MODULE_TREE_SOURCE_PYTHON_MODULES:
      return base::StrCat("nn.Module events", user.empty() ? "" : " and ",
                          user);
    case v1::MODULE_TREE_SOURCE_ANNOTATIONS:
      return base::StrCat("nn.Module annotations", user.empty() ? "" : " and ",
                          user);
    case v1::MODULE_TREE_SOURCE_USER_ANNOTATIONS:
      return base::StrCat(user,
                          " over the operator tree (no nn.Module events "
                          "in the trace)");
    default:
      return "operator tree (no nn.Module events in the trace)";
  }
}

// Per-step values as the differ takes them (analysis/worker_series.h): the
// sum of a row's step samples over the kept steps, divided by them; without
// kept steps, its totals (one slot).
void FillOperators(google::protobuf::RepeatedPtrField<v1::OperatorStats>& rows,
                   int kept_steps) {
  const double slots = std::max(kept_steps, 1);
  for (v1::OperatorStats& r : rows) {
    v1::OperatorPerStep& s = *r.mutable_per_step();
    s.Clear();
    if (kept_steps == 0) {
      s.set_calls(r.calls());
      s.set_host_self_us(r.host_self_us());
      s.set_host_total_us(r.host_total_us());
      s.set_device_self_us(r.device_self_us());
      s.set_device_total_us(r.device_total_us());
      continue;
    }
    for (const v1::OperatorStepSample& x : r.step_samples()) {
      if (x.step_index() < 0 || x.step_index() >= kept_steps) continue;
      s.set_calls(s.calls() + x.calls() / slots);
      s.set_host_self_us(s.host_self_us() + x.host_self_us() / slots);
      s.set_host_total_us(s.host_total_us() + x.host_total_us() / slots);
      s.set_device_self_us(s.device_self_us() + x.device_self_us() / slots);
      s.set_device_total_us(s.device_total_us() + x.device_total_us() / slots);
    }
  }
}

void FillKernels(google::protobuf::RepeatedPtrField<v1::KernelStats>& rows,
                 int kept_steps) {
  const double slots = std::max(kept_steps, 1);
  for (v1::KernelStats& r : rows) {
    v1::KernelPerStep& s = *r.mutable_per_step();
    s.Clear();
    if (kept_steps == 0) {
      s.set_calls(r.calls());
      s.set_total_us(r.total_us());
      continue;
    }
    for (const v1::KernelStepSample& x : r.step_samples()) {
      if (x.step_index() < 0 || x.step_index() >= kept_steps) continue;
      s.set_calls(s.calls() + x.calls() / slots);
      s.set_total_us(s.total_us() + x.total_us() / slots);
    }
  }
}

void FillModules(v1::ModuleNode& node, int kept_steps) {
  const double slots = std::max(kept_steps, 1);
  v1::ModulePerStep& s = *node.mutable_per_step();
  s.Clear();
  // Self times have no step samples: their totals per kept step.
  s.set_host_self_us(node.host_self_us() / slots);
  s.set_device_self_us(node.device_self_us() / slots);
  if (kept_steps == 0) {
    s.set_calls(node.calls());
    s.set_host_us(node.host_us());
    s.set_device_us(node.device_us());
    s.set_backward_host_us(node.backward_host_us());
    s.set_backward_device_us(node.backward_device_us());
  } else {
    for (const v1::ModuleStepSample& x : node.step_samples()) {
      if (x.step_index() < 0 || x.step_index() >= kept_steps) continue;
      s.set_calls(s.calls() + x.calls() / slots);
      s.set_host_us(s.host_us() + x.host_us() / slots);
      s.set_device_us(s.device_us() + x.device_us() / slots);
      s.set_backward_host_us(s.backward_host_us() +
                             x.backward_host_us() / slots);
      s.set_backward_device_us(s.backward_device_us() +
                               x.backward_device_us() / slots);
    }
  }
  s.set_compare_us(s.device_us() > 0 ? s.device_us() : s.host_us());
  FillOperators(*node.mutable_operators(), kept_steps);
  FillKernels(*node.mutable_kernels(), kept_steps);
  for (v1::ModuleNode& child : *node.mutable_children())
    FillModules(child, kept_steps);
}

}  // namespace

void AddPerStepValues(v1::RunProfile& run) {
  for (v1::WorkerProfile& w : *run.mutable_workers()) {
    FillOperators(*w.mutable_operators(), w.steps_size());
    FillKernels(*w.mutable_kernels(), w.steps_size());
    if (w.has_modules()) FillModules(*w.mutable_modules(), w.steps_size());
  }
}

absl::StatusOr<std::set<ProfileView>> ParseProfileViews(
    const std::string& text) {
  static constexpr std::pair<std::string_view, ProfileView> kNames[] = {
      {"overview", ProfileView::kOverview},
      {"steps", ProfileView::kSteps},
      {"operators", ProfileView::kOperators},
      {"kernels", ProfileView::kKernels},
      {"modules", ProfileView::kModules},
      {"memory", ProfileView::kMemory},
      {"comm", ProfileView::kComm},
      {"all", ProfileView::kAll}};
  std::set<ProfileView> views;
  for (absl::string_view name :
       absl::StrSplit(base::ToAbsl(text), ',', absl::SkipEmpty())) {
    const auto* found =
        std::find_if(std::begin(kNames), std::end(kNames), [&](const auto& n) {
          return n.first == std::string_view(name.data(), name.size());
        });
    if (found == std::end(kNames)) {
      return absl::InvalidArgumentError(
          base::StrCat("--view ", name,
                       ": expected overview, steps, operators, kernels, "
                       "modules, memory, comm or all (several: "
                       "comma-separated)"));
    }
    views.insert(found->second);
  }
  if (views.empty())
    return absl::InvalidArgumentError("--view: empty list of views");
  return views;
}

absl::StatusOr<OutputFormat> ParseOutputFormat(const std::string& text) {
  if (text == "table") return OutputFormat::kTable;
  if (text == "json") return OutputFormat::kJson;
  if (text == "csv") return OutputFormat::kCsv;
  return absl::InvalidArgumentError(
      base::StrCat("--format ", text, ": expected table, json or csv"));
}

absl::Status ApplyRowControls(const ShowOptions& options, v1::RunProfile& run) {
  // One --sort names a column of the view shown (operators unless it is
  // kernels); the other table keeps its order.
  const bool sorts_kernels =
      options.views == std::set<ProfileView>{ProfileView::kKernels};
  const differ::RowControls sorted{options.sort, options.filter, options.top};
  differ::RowControls unsorted = sorted;
  unsorted.sort.clear();
  for (v1::WorkerProfile& w : *run.mutable_workers()) {
    PD_RETURN_IF_ERROR(differ::OrderRows(sorts_kernels ? unsorted : sorted,
                                         *w.mutable_operators()));
    PD_RETURN_IF_ERROR(differ::OrderRows(sorts_kernels ? sorted : unsorted,
                                         *w.mutable_kernels()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> RenderRunProfile(const v1::RunProfile& run,
                                             const ShowOptions& options) {
  if (options.format == OutputFormat::kJson) return ToJson(run);
  if (options.format == OutputFormat::kCsv) {
    return absl::InternalError(
        "CSV is written by RenderRunProfileCsv (profile_csv.h)");
  }
  std::string out;
  auto section = [&](const std::string& title, const TextTable& table) {
    out += base::StrCat(
        "\n", WrapWords("", title, options.line_width),
        table.RenderText(
            options.line_width > 0 ? 80 : std::numeric_limits<size_t>::max(),
            options.line_width));
  };
  for (const std::string& warning : run.warnings())
    out += WrapWords("warning: ", warning, options.line_width);
  for (const v1::WorkerProfile& w : run.workers()) {
    out += WorkerHeader(run, w, options.line_width);
    for (const std::string& warning : w.warnings())
      out += WrapWords("warning: ", warning, options.line_width);
    if (options.Shows(ProfileView::kOverview))
      section("Overview (mean over kept steps)", OverviewTable(w));
    if (options.Shows(ProfileView::kSteps)) section("Steps", StepsTable(w));
    // Tables per kept step (diff's unit) unless --normalize total; the
    // titles say which.
    const std::string over = base::StrCat(
        options.per_step ? "per step over " : "totals over ", KeptSteps(w));
    if (options.Shows(ProfileView::kOperators)) {
      section(base::StrCat("Operators (", over, ")"),
              OperatorsTable(w, options.per_step));
    }
    if (options.Shows(ProfileView::kKernels)) {
      section(base::StrCat("Kernels (", over, "; mean, max and min per call)"),
              KernelsTable(w, options.per_step));
    }
    if (options.Shows(ProfileView::kModules)) {
      section(base::StrCat("Modules, from the ", ModuleSourceText(w), " (",
                           over, ")"),
              ModulesTable(w, options.per_step));
      out += BackwardLine(w, options.line_width);
    }
    if (options.Shows(ProfileView::kMemory)) {
      if (w.memory_size() == 0) {
        // No events is not zero memory: say so rather than print an empty
        // table (JSON: memory_source).
        out +=
            base::StrCat("\nMemory: ", NoMemoryText(w.memory_source()), "\n");
      } else {
        section("Memory", MemoryTable(w));
      }
    }
    out += "\n";
  }
  // Collectives are matched across the run's workers: once, after them.
  if (options.Shows(ProfileView::kComm))
    out += RenderRunCommunication(run, options.line_width) + "\n";
  return out;
}

}  // namespace profdiff::client
