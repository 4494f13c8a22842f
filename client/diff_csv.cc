#include "client/diff_csv.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <utility>

#include "base/name_filter.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "client/csv_table.h"
#include "client/module_table_rows.h"
#include "client/profile_csv.h"

namespace profdiff::client {
namespace {

enum class Side { kBaseline, kExperimental };

template <typename Values>
using Field = CsvField<Values>;

// The four value messages of a compared row, and which values a side does
// not have (its trace did not record them): those cells, and the row's delta
// and delta_pct of them, are empty.
template <typename Row, typename Values>
struct Compared {
  std::function<const Values&(const Row&)> baseline;
  std::function<const Values&(const Row&)> experimental;
  std::function<const Values&(const Row&)> delta;
  std::function<const Values&(const Row&)> delta_pct;  // empty: no such columns
  std::function<bool(const Row&, const std::string& field, Side side)> missing;
};

// A change in percent: empty where the baseline is 0 and the value appeared
// (no percentage exists; the table says "new"), 0 where both are 0.
std::string PercentCell(double baseline, double experimental, double pct) {
  if (baseline == 0) return experimental == 0 ? "0" : "";
  return CsvNumber(pct);
}

// baseline_X and experimental_X of each field X, then delta_X, then
// delta_pct_X.
template <typename Row, typename Values>
void AddCompared(CsvColumns<Row>& columns,
                 const std::vector<Field<Values>>& fields,
                 const Compared<Row, Values>& c) {
  auto missing = [c](const Row& row, const std::string& field, Side side) {
    return c.missing && c.missing(row, field, side);
  };
  auto either_missing = [missing](const Row& row, const std::string& field) {
    return missing(row, field, Side::kBaseline) ||
           missing(row, field, Side::kExperimental);
  };
  for (const Side side : {Side::kBaseline, Side::kExperimental}) {
    const auto values = side == Side::kBaseline ? c.baseline : c.experimental;
    for (const Field<Values>& f : fields) {
      columns.Add(
          base::StrCat(side == Side::kBaseline ? "baseline_" : "experimental_",
                       f.name),
          [=](const Row& row) {
            return missing(row, f.name, side) ? std::string()
                                              : CsvNumber(f.get(values(row)));
          });
    }
  }
  for (const Field<Values>& f : fields) {
    columns.Add("delta_" + f.name, [=](const Row& row) {
      return either_missing(row, f.name) ? std::string()
                                         : CsvNumber(f.get(c.delta(row)));
    });
  }
  if (!c.delta_pct) return;
  for (const Field<Values>& f : fields) {
    columns.Add("delta_pct_" + f.name, [=](const Row& row) {
      return either_missing(row, f.name)
                 ? std::string()
                 : PercentCell(f.get(c.baseline(row)),
                               f.get(c.experimental(row)),
                               f.get(c.delta_pct(row)));
    });
  }
}

// A Noise's columns, `prefix` first ("noise_", "wait_noise_"); `unit` ("_us",
// "_bytes", "") is the unit of the value it is about. Without an interval
// (fewer than two samples a side) its bounds are empty, and so is the
// standard deviation of a side with fewer than two samples.
template <typename Row>
void AddNoise(CsvColumns<Row>& columns, const std::string& prefix,
              const std::string& unit,
              std::function<const v1::Noise&(const Row&)> noise) {
  columns.Add(prefix + "significant", [noise](const Row& row) {
    return CsvBool(noise(row).significant());
  });
  columns.Add(prefix + "ci_low" + unit, [noise](const Row& row) {
    const v1::Noise& n = noise(row);
    return n.has_interval() ? CsvNumber(n.ci_low()) : std::string();
  });
  columns.Add(prefix + "ci_high" + unit, [noise](const Row& row) {
    const v1::Noise& n = noise(row);
    return n.has_interval() ? CsvNumber(n.ci_high()) : std::string();
  });
  columns.Add(prefix + "baseline_samples", [noise](const Row& row) {
    return CsvInteger(noise(row).baseline_samples());
  });
  columns.Add(prefix + "experimental_samples", [noise](const Row& row) {
    return CsvInteger(noise(row).experimental_samples());
  });
  columns.Add(prefix + "baseline_stddev" + unit, [noise](const Row& row) {
    const v1::Noise& n = noise(row);
    return n.baseline_samples() >= 2 ? CsvNumber(n.baseline_stddev())
                                     : std::string();
  });
  columns.Add(prefix + "experimental_stddev" + unit, [noise](const Row& row) {
    const v1::Noise& n = noise(row);
    return n.experimental_samples() >= 2 ? CsvNumber(n.experimental_stddev())
                                         : std::string();
  });
}

std::string FindingsCsv(const v1::DiffReport& report) {
  struct Row {
    int number;
    const v1::Finding* finding;
  };
  std::vector<Row> rows;
  for (const v1::Finding& f : report.findings())
    rows.push_back({static_cast<int>(rows.size()) + 1, &f});
  CsvColumns<Row> c;
  c.Add("finding", [](const Row& r) { return CsvInteger(r.number); });
  c.Add("kind", [](const Row& r) { return CsvEnumWord(r.finding->kind()); });
  c.Add("significant",
        [](const Row& r) { return CsvBool(r.finding->significant()); });
  c.Add("delta_us",
        [](const Row& r) { return CsvNumber(r.finding->delta_us()); });
  c.Add("delta_bytes",
        [](const Row& r) { return CsvNumber(r.finding->delta_bytes()); });
  c.Add("share_of_step_change", [](const Row& r) {
    return CsvNumber(r.finding->share_of_step_change());
  });
  c.Add("text", [](const Row& r) { return r.finding->text(); });
  return c.Render(rows);
}

std::string OverviewCsv(const v1::DiffReport& report) {
  using Row = v1::OverviewRow;
  // A text row (the device's name) has text, not numbers.
  auto text_row = [](const Row& r) {
    return r.unit() == v1::VALUE_UNIT_UNSPECIFIED && !r.baseline_text().empty();
  };
  auto number = [text_row](bool missing, const Row& r, double value) {
    return missing || text_row(r) ? std::string() : CsvNumber(value);
  };
  auto compared = [text_row](const Row& r) {
    return !text_row(r) && !r.baseline_missing() && !r.experimental_missing();
  };
  CsvColumns<Row> c;
  c.Add("metric", [](const Row& r) { return CsvEnumWord(r.metric()); });
  c.Add("unit", [](const Row& r) { return CsvEnumWord(r.unit()); });
  c.Add("baseline", [number](const Row& r) {
    return number(r.baseline_missing(), r, r.baseline());
  });
  c.Add("experimental", [number](const Row& r) {
    return number(r.experimental_missing(), r, r.experimental());
  });
  c.Add("delta", [compared](const Row& r) {
    return compared(r) ? CsvNumber(r.delta()) : std::string();
  });
  c.Add("delta_pct", [compared](const Row& r) {
    return compared(r)
               ? PercentCell(r.baseline(), r.experimental(), r.delta_pct())
               : std::string();
  });
  c.Add("baseline_text", [](const Row& r) { return r.baseline_text(); });
  c.Add("experimental_text",
        [](const Row& r) { return r.experimental_text(); });
  // The unit differs by row: the noise columns are in the row's.
  AddNoise<Row>(c, "noise_", "", &Row::noise);
  return c.Render(report.overview().rows());
}

struct ModuleRow {
  const v1::ModuleDiffNode* node;
  int depth;
};

void FlattenModules(const v1::ModuleDiffNode& node, int depth,
                    const ModuleTableRows& shown, std::vector<ModuleRow>& out) {
  if (!shown.shown.contains(&node)) return;
  out.push_back({&node, depth});
  for (const v1::ModuleDiffNode& child : node.children())
    FlattenModules(child, depth + 1, shown, out);
}

absl::StatusOr<std::string> ModulesCsv(const v1::DiffReport& report,
                                       const DiffCsvOptions& options) {
  std::vector<ModuleRow> rows;
  if (report.has_modules()) {
    PD_ASSIGN_OR_RETURN(const base::NameFilter filter,
                        base::NameFilter::Compile(report.options().filter()));
    const ModuleTableRows shown = SelectModuleTableRows(
        report.modules(), options.module_depth, filter, report.options().top());
    FlattenModules(report.modules(), 0, shown, rows);
  }
  using Row = ModuleRow;
  CsvColumns<Row> c;
  c.Add("depth", [](const Row& r) { return CsvInteger(r.depth); });
  c.Add("index_path", [](const Row& r) { return r.node->index_path(); });
  c.Add("path", [](const Row& r) { return r.node->path(); });
  c.Add("name", [](const Row& r) { return r.node->name(); });
  c.Add("baseline_name", [](const Row& r) { return r.node->baseline_name(); });
  c.Add("experimental_name",
        [](const Row& r) { return r.node->experimental_name(); });
  c.Add("status", [](const Row& r) { return CsvEnumWord(r.node->status()); });
  c.Add("kind", [](const Row& r) { return CsvEnumWord(r.node->kind()); });
  c.Add("compared",
        [](const Row& r) { return CsvEnumWord(r.node->compared()); });
  using V = v1::ModuleValues;
  AddCompared<Row, V>(
      c,
      {{"calls", &V::calls},
       {"host_us", &V::host_us},
       {"device_us", &V::device_us},
       {"compare_us", &V::compare_us},
       {"backward_us", &V::backward_us}},
      {.baseline = [](const Row& r) -> const V& { return r.node->baseline(); },
       .experimental = [](const Row& r) -> const V& {
         return r.node->experimental();
       },
       .delta = [](const Row& r) -> const V& { return r.node->delta(); },
       .delta_pct = nullptr,
       // Only a forward module has a backward node.
       .missing =
           [](const Row& r, const std::string& field, Side) {
             return field == "backward_us" &&
                    r.node->kind() != v1::MODULE_NODE_KIND_MODULE;
           }});
  c.Add("delta_pct", [](const Row& r) {
    return PercentCell(r.node->baseline().compare_us(),
                       r.node->experimental().compare_us(),
                       r.node->delta_pct());
  });
  AddNoise<Row>(c, "noise_", "_us", [](const Row& r) -> const v1::Noise& {
    return r.node->noise();
  });
  return c.Render(rows);
}

std::string OperatorsCsv(const v1::DiffReport& report) {
  using Row = v1::OperatorDiff;
  using V = v1::OperatorValues;
  CsvColumns<Row> c;
  c.Add("name", [](const Row& r) { return r.name(); });
  c.Add("input_shapes", [](const Row& r) { return r.input_shapes(); });
  c.Add("change", [](const Row& r) { return CsvEnumWord(r.change()); });
  c.Add("compared", [](const Row& r) { return CsvEnumWord(r.compared()); });
  AddCompared<Row, V>(c,
                      {{"calls", &V::calls},
                       {"host_self_us", &V::host_self_us},
                       {"host_total_us", &V::host_total_us},
                       {"device_self_us", &V::device_self_us},
                       {"device_total_us", &V::device_total_us}},
                      {.baseline = &Row::baseline,
                       .experimental = &Row::experimental,
                       .delta = &Row::delta,
                       .delta_pct = &Row::delta_pct,
                       .missing = nullptr});
  AddNoise<Row>(c, "noise_", "_us", &Row::noise);
  return c.Render(report.operators());
}

std::string KernelsCsv(const v1::DiffReport& report) {
  using Row = v1::KernelDiff;
  using V = v1::KernelValues;
  CsvColumns<Row> c;
  c.Add("name", [](const Row& r) { return r.name(); });
  c.Add("op_name", [](const Row& r) { return r.op_name(); });
  c.Add("change", [](const Row& r) { return CsvEnumWord(r.change()); });
  AddCompared<Row, V>(
      c,
      {{"calls", &V::calls},
       {"total_us", &V::total_us},
       {"mean_us", &V::mean_us},
       {"min_us", &V::min_us},
       {"max_us", &V::max_us}},
      {.baseline = &Row::baseline,
       .experimental = &Row::experimental,
       .delta = &Row::delta,
       .delta_pct = &Row::delta_pct,
       // A side that never launched it has no per-call mean, min or max.
       .missing = [](const Row& r, const std::string& field, Side side) {
         const V& v = side == Side::kBaseline ? r.baseline() : r.experimental();
         return v.calls() == 0 && field != "calls" && field != "total_us";
       }});
  AddNoise<Row>(c, "noise_", "_us", &Row::noise);
  return c.Render(report.kernels());
}

std::string RanksCsv(const v1::DiffReport& report) {
  using Row = v1::RankSteps;
  CsvColumns<Row> c;
  c.Add("side", [](const Row& r) { return CsvEnumWord(r.side()); });
  c.Add("rank", [](const Row& r) { return CsvInteger(r.rank()); });
  c.Add("worker_name", [](const Row& r) { return r.worker_name(); });
  c.Add("steps", [](const Row& r) { return CsvInteger(r.steps()); });
  c.Add("slowest_compute",
        [](const Row& r) { return CsvBool(r.slowest_compute()); });
  c.Add("compute_us", [](const Row& r) { return CsvNumber(r.compute_us()); });
  for (const Field<v1::StepStats>& f : MeanStepCsvFields()) {
    c.Add("average_step_" + f.name,
          [f](const Row& r) { return CsvNumber(f.get(r.average_step())); });
  }
  return c.Render(report.ranks());
}

// Collectives of both sides, pooled over message sizes (`pooled`:
// by_collective) or one row per size.
std::string CollectivesCsv(
    const google::protobuf::RepeatedPtrField<v1::CollectiveDiff>& rows,
    bool pooled) {
  using Row = v1::CollectiveDiff;
  using V = v1::CollectiveValues;
  auto size_missing = [](const Row& r, Side side) {
    return side == Side::kBaseline ? r.baseline_size_missing()
                                   : r.experimental_size_missing();
  };
  CsvColumns<Row> c;
  c.Add("collective", [](const Row& r) { return r.collective(); });
  c.Add("process_group", [](const Row& r) { return r.process_group(); });
  // The row's message size: none when pooled, unknown when a side's trace
  // does not record it.
  c.Add("bytes_per_call", [pooled, size_missing](const Row& r) {
    return pooled || size_missing(r, Side::kBaseline) ||
                   size_missing(r, Side::kExperimental)
               ? std::string()
               : CsvInteger(r.bytes_per_call());
  });
  c.Add("dtype", [](const Row& r) { return r.dtype(); });
  c.Add("group_size", [](const Row& r) { return CsvInteger(r.group_size()); });
  c.Add("change", [](const Row& r) { return CsvEnumWord(r.change()); });
  AddCompared<Row, V>(
      c,
      {{"calls", &V::calls},
       {"bytes", &V::bytes},
       {"time_us", &V::time_us},
       {"transfer_us", &V::transfer_us},
       {"wait_us", &V::wait_us},
       {"algbw_gbps", &V::algbw_gbps},
       {"busbw_gbps", &V::busbw_gbps},
       {"bytes_per_call", &V::bytes_per_call}},
      {.baseline = &Row::baseline,
       .experimental = &Row::experimental,
       .delta = &Row::delta,
       .delta_pct = &Row::delta_pct,
       // Sizes, and the bandwidths computed from them.
       .missing = [size_missing](const Row& r, const std::string& field,
                                 Side side) {
         return field != "calls" && !field.ends_with("_us") &&
                size_missing(r, side);
       }});
  AddNoise<Row>(c, "calls_noise_", "", &Row::calls_noise);
  AddNoise<Row>(c, "bytes_noise_", "_bytes", &Row::bytes_noise);
  AddNoise<Row>(c, "time_noise_", "_us", &Row::time_noise);
  AddNoise<Row>(c, "transfer_noise_", "_us", &Row::transfer_noise);
  AddNoise<Row>(c, "wait_noise_", "_us", &Row::wait_noise);
  AddNoise<Row>(c, "bytes_per_call_noise_", "_bytes",
                &Row::bytes_per_call_noise);
  return c.Render(rows);
}

std::string CommRanksCsv(const v1::DiffReport& report) {
  using Row = v1::RankCommunicationDiff;
  using V = v1::RankCommunicationValues;
  CsvColumns<Row> c;
  c.Add("rank", [](const Row& r) { return CsvInteger(r.rank()); });
  AddCompared<Row, V>(
      c,
      {{"collective_us", &V::collective_us},
       {"exposed_us", &V::exposed_us},
       {"overlap_ratio", &V::overlap_ratio},
       {"wait_us", &V::wait_us},
       {"transfer_us", &V::transfer_us},
       {"time_us", &V::time_us},
       {"last_arrivals", &V::last_arrivals},
       {"instances", &V::instances}},
      {.baseline = &Row::baseline,
       .experimental = &Row::experimental,
       .delta = &Row::delta,
       .delta_pct = nullptr,
       // The rank is not in that side.
       .missing = [](const Row& r, const std::string&, Side side) {
         return side == Side::kBaseline ? r.baseline_missing()
                                        : r.experimental_missing();
       }});
  AddNoise<Row>(c, "exposed_noise_", "_us", &Row::exposed_noise);
  AddNoise<Row>(c, "wait_noise_", "_us", &Row::wait_noise);
  return c.Render(report.communication().ranks());
}

// Each side's straggler verdict: which rank arrived last most often.
std::string CommStragglersCsv(const v1::DiffReport& report) {
  struct Row {
    const char* side;
    int instances;
    const std::string* verdict_text;
    const v1::StragglerVerdict* verdict;
  };
  const v1::CommunicationDiff& comm = report.communication();
  std::vector<Row> rows;
  if (report.has_communication()) {
    rows.push_back({"baseline", comm.baseline_instances(),
                    &comm.baseline_verdict(), &comm.baseline_straggler()});
    rows.push_back({"experimental", comm.experimental_instances(),
                    &comm.experimental_verdict(),
                    &comm.experimental_straggler()});
  }
  CsvColumns<Row> c;
  c.Add("side", [](const Row& r) { return std::string(r.side); });
  c.Add("instances", [](const Row& r) { return CsvInteger(r.instances); });
  c.Add("straggler_found",
        [](const Row& r) { return CsvBool(r.verdict->found()); });
  c.Add("straggler_rank", [](const Row& r) {
    return r.verdict->rank() < 0 ? std::string()
                                 : CsvInteger(r.verdict->rank());
  });
  c.Add("straggler_last_arrivals",
        [](const Row& r) { return CsvInteger(r.verdict->last_arrivals()); });
  c.Add("straggler_instances",
        [](const Row& r) { return CsvInteger(r.verdict->instances()); });
  c.Add("straggler_share",
        [](const Row& r) { return CsvNumber(r.verdict->share()); });
  c.Add("straggler_collective",
        [](const Row& r) { return r.verdict->collective(); });
  c.Add("straggler_matched",
        [](const Row& r) { return CsvInteger(r.verdict->matched()); });
  c.Add("verdict", [](const Row& r) { return *r.verdict_text; });
  return c.Render(rows);
}

// A side's peak place: baseline_peak_rank, ... (empty where it has none).
void AddPeakPlace(CsvColumns<v1::DeviceMemoryDiff>& c, Side side) {
  using Row = v1::DeviceMemoryDiff;
  const std::string prefix =
      side == Side::kBaseline ? "baseline_peak_" : "experimental_peak_";
  auto place = [side](const Row& r) -> const v1::MemoryPeakPlace& {
    return side == Side::kBaseline ? r.baseline_peak() : r.experimental_peak();
  };
  c.Add(prefix + "rank",
        [place](const Row& r) { return CsvInteger(place(r).rank()); });
  c.Add(prefix + "step", [place](const Row& r) {
    return place(r).has_step() ? CsvInteger(place(r).step()) : std::string();
  });
  c.Add(prefix + "step_index", [place](const Row& r) {
    return place(r).step_index() < 0 ? std::string()
                                     : CsvInteger(place(r).step_index());
  });
  c.Add(prefix + "offset_ns",
        [place](const Row& r) { return CsvInteger(place(r).offset_ns()); });
  c.Add(prefix + "operator_name",
        [place](const Row& r) { return place(r).operator_name(); });
  c.Add(prefix + "module_path",
        [place](const Row& r) { return place(r).module_path(); });
}

std::string MemoryDevicesCsv(const v1::DiffReport& report) {
  using Row = v1::DeviceMemoryDiff;
  CsvColumns<Row> c;
  c.Add("device", [](const Row& r) { return r.device(); });
  c.Add("allocated_from_bytes",
        [](const Row& r) { return CsvBool(r.allocated_from_bytes()); });
  c.Add("baseline_peak_bytes",
        [](const Row& r) { return CsvNumber(r.baseline_peak_bytes()); });
  c.Add("experimental_peak_bytes",
        [](const Row& r) { return CsvNumber(r.experimental_peak_bytes()); });
  c.Add("delta_peak_bytes", [](const Row& r) {
    return CsvNumber(r.experimental_peak_bytes() - r.baseline_peak_bytes());
  });
  c.Add("delta_pct_peak_bytes", [](const Row& r) {
    const double a = r.baseline_peak_bytes(), b = r.experimental_peak_bytes();
    return PercentCell(a, b, a == 0 ? 0 : (b - a) / a * 100);
  });
  c.Add("baseline_average_bytes",
        [](const Row& r) { return CsvNumber(r.baseline_average_bytes()); });
  c.Add("experimental_average_bytes",
        [](const Row& r) { return CsvNumber(r.experimental_average_bytes()); });
  c.Add("baseline_peak_reserved_bytes", [](const Row& r) {
    return CsvNumber(r.baseline_peak_reserved_bytes());
  });
  c.Add("experimental_peak_reserved_bytes", [](const Row& r) {
    return CsvNumber(r.experimental_peak_reserved_bytes());
  });
  AddPeakPlace(c, Side::kBaseline);
  AddPeakPlace(c, Side::kExperimental);
  return c.Render(report.memory().devices());
}

// What was alive at each side's peak, by allocating operator.
std::string MemoryHoldersCsv(const v1::DiffReport& report) {
  struct Row {
    const std::string* device;
    const char* side;
    const v1::MemoryHolder* holder;
  };
  std::vector<Row> rows;
  for (const v1::DeviceMemoryDiff& d : report.memory().devices()) {
    for (const v1::MemoryHolder& h : d.baseline_peak().holders())
      rows.push_back({&d.device(), "baseline", &h});
    for (const v1::MemoryHolder& h : d.experimental_peak().holders())
      rows.push_back({&d.device(), "experimental", &h});
  }
  CsvColumns<Row> c;
  c.Add("device", [](const Row& r) { return *r.device; });
  c.Add("side", [](const Row& r) { return std::string(r.side); });
  c.Add("operator_name",
        [](const Row& r) { return r.holder->operator_name(); });
  c.Add("bytes", [](const Row& r) { return CsvInteger(r.holder->bytes()); });
  // 0 blocks: not counted (frees were not matched to allocations).
  c.Add("blocks", [](const Row& r) {
    return r.holder->blocks() > 0 ? CsvInteger(r.holder->blocks())
                                  : std::string();
  });
  return c.Render(rows);
}

// Operator (`modules` false) or module memory rows.
std::string MemoryRowsCsv(const v1::DiffReport& report, bool modules) {
  using Row = v1::MemoryRowDiff;
  using V = v1::MemoryValues;
  CsvColumns<Row> c;
  if (modules) {
    c.Add("path", [](const Row& r) { return r.detail(); });
    c.Add("name", [](const Row& r) { return r.name(); });
    c.Add("kind", [](const Row& r) { return CsvEnumWord(r.kind()); });
  } else {
    c.Add("name", [](const Row& r) { return r.name(); });
    c.Add("input_shapes", [](const Row& r) { return r.detail(); });
  }
  c.Add("device", [](const Row& r) { return r.device(); });
  c.Add("change", [](const Row& r) { return CsvEnumWord(r.change()); });
  c.Add("compared", [](const Row& r) { return CsvEnumWord(r.compared()); });
  std::vector<Field<V>> fields = {
      {"calls", &V::calls},
      {"allocation_count", &V::allocation_count},
      {"allocation_bytes", &V::allocation_bytes},
      {"self_increase_bytes", &V::self_increase_bytes}};
  // MemoryValues: the totals with children are the operators'; the peak
  // inside is the modules'.
  if (modules) {
    fields.push_back({"peak_allocated_bytes", &V::peak_allocated_bytes});
  } else {
    fields.push_back({"total_allocation_bytes", &V::total_allocation_bytes});
    fields.push_back({"increase_bytes", &V::increase_bytes});
  }
  AddCompared<Row, V>(c, fields,
                      {.baseline = &Row::baseline,
                       .experimental = &Row::experimental,
                       .delta = &Row::delta,
                       .delta_pct = &Row::delta_pct,
                       .missing = nullptr});
  AddNoise<Row>(c, "allocation_noise_", "_bytes", &Row::allocation_noise);
  AddNoise<Row>(c, "increase_noise_", "_bytes", &Row::increase_noise);
  return c.Render(modules ? report.memory().modules()
                          : report.memory().operators());
}

// HTA mode: the columns of HTA's TraceDiff.compare_traces on two trace
// folders (their labels Control and Test; durations in integer us), so a
// pandas script written against it reads this file unchanged.
std::string HtaCsv(const v1::DiffReport& report) {
  using Row = v1::HtaRow;
  CsvColumns<Row> c;
  c.Add(report.options().hta_short_names() ? "short_name" : "name",
        [](const Row& r) { return r.name(); });
  c.Add("Control_counts",
        [](const Row& r) { return CsvInteger(r.baseline_counts()); });
  c.Add("Control_total_duration",
        [](const Row& r) { return CsvNumber(r.baseline_total_duration_us()); });
  c.Add("Test_counts",
        [](const Row& r) { return CsvInteger(r.experimental_counts()); });
  c.Add("Test_total_duration", [](const Row& r) {
    return CsvNumber(r.experimental_total_duration_us());
  });
  c.Add("diff_counts",
        [](const Row& r) { return CsvInteger(r.diff_counts()); });
  c.Add("diff_duration",
        [](const Row& r) { return CsvNumber(r.diff_duration_us()); });
  c.Add("counts_change_categories",
        [](const Row& r) { return CsvEnumWord(r.change()); });
  return c.Render(report.hta_rows());
}

// The tables as the registry below calls them.
using Render = absl::StatusOr<std::string> (*)(const v1::DiffReport&,
                                               const DiffCsvOptions&);

template <std::string (*F)(const v1::DiffReport&)>
absl::StatusOr<std::string> Plain(const v1::DiffReport& report,
                                  const DiffCsvOptions&) {
  return F(report);
}

std::string CommByCollectiveCsv(const v1::DiffReport& report) {
  return CollectivesCsv(report.communication().by_collective(),
                        /*pooled=*/true);
}
std::string CommCollectivesCsv(const v1::DiffReport& report) {
  return CollectivesCsv(report.communication().collectives(),
                        /*pooled=*/false);
}
std::string MemoryOperatorsCsv(const v1::DiffReport& report) {
  return MemoryRowsCsv(report, /*modules=*/false);
}
std::string MemoryModulesCsv(const v1::DiffReport& report) {
  return MemoryRowsCsv(report, /*modules=*/true);
}

// Every table: its name, its view and how it is written, in the order -o
// DIR/ writes them.
struct TableSpec {
  std::string_view name;
  v1::DiffView view;
  Render render;
};
constexpr TableSpec kTables[] = {
    {"findings", v1::DIFF_VIEW_FINDINGS, Plain<FindingsCsv>},
    {"overview", v1::DIFF_VIEW_OVERVIEW, Plain<OverviewCsv>},
    {"modules", v1::DIFF_VIEW_MODULES, ModulesCsv},
    {"operators", v1::DIFF_VIEW_OPERATORS, Plain<OperatorsCsv>},
    {"kernels", v1::DIFF_VIEW_KERNELS, Plain<KernelsCsv>},
    {"ranks", v1::DIFF_VIEW_RANKS, Plain<RanksCsv>},
    {"comm_by_collective", v1::DIFF_VIEW_COMMUNICATION,
     Plain<CommByCollectiveCsv>},
    {"comm_collectives", v1::DIFF_VIEW_COMMUNICATION,
     Plain<CommCollectivesCsv>},
    {"comm_ranks", v1::DIFF_VIEW_COMMUNICATION, Plain<CommRanksCsv>},
    {"comm_stragglers", v1::DIFF_VIEW_COMMUNICATION, Plain<CommStragglersCsv>},
    {"memory_devices", v1::DIFF_VIEW_MEMORY, Plain<MemoryDevicesCsv>},
    {"memory_holders", v1::DIFF_VIEW_MEMORY, Plain<MemoryHoldersCsv>},
    {"memory_operators", v1::DIFF_VIEW_MEMORY, Plain<MemoryOperatorsCsv>},
    {"memory_modules", v1::DIFF_VIEW_MEMORY, Plain<MemoryModulesCsv>},
};

}  // namespace

std::vector<v1::DiffView> DiffCsvViews() {
  std::vector<v1::DiffView> views;
  for (const TableSpec& t : kTables) {
    if (std::find(views.begin(), views.end(), t.view) == views.end())
      views.push_back(t.view);
  }
  return views;
}

std::vector<std::string> DiffCsvTables(v1::DiffView view) {
  std::vector<std::string> names;
  for (const TableSpec& t : kTables) {
    if (t.view == view) names.emplace_back(t.name);
  }
  return names;
}

std::optional<v1::DiffView> DiffViewOfCsvTable(std::string_view name) {
  for (const TableSpec& t : kTables) {
    if (t.name == name) return t.view;
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<CsvFile>> RenderDiffCsv(
    const v1::DiffReport& report, const std::vector<std::string>& tables,
    const DiffCsvOptions& options) {
  std::vector<CsvFile> files;
  for (const std::string& name : tables) {
    if (name == kHtaCsvTable) {
      files.push_back({name, HtaCsv(report)});
      continue;
    }
    const auto spec =
        std::find_if(std::begin(kTables), std::end(kTables),
                     [&](const TableSpec& t) { return t.name == name; });
    if (spec == std::end(kTables)) {
      return absl::InvalidArgumentError(
          base::StrCat("--view ", name, ": no CSV table of that name"));
    }
    PD_ASSIGN_OR_RETURN(std::string text, spec->render(report, options));
    files.push_back({name, std::move(text)});
  }
  return files;
}

}  // namespace profdiff::client
