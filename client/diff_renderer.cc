#include "client/diff_renderer.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>

#include "base/name_filter.h"
#include "base/number_format.h"
#include "base/rank_ranges.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "client/json_output.h"
#include "client/memory_renderer.h"
#include "client/name_columns.h"
#include "client/text_table.h"
#include "differ/display_text.h"

namespace profdiff::client {
using base::BytesText;
using base::CountText;
using base::DeltaPercent;
using base::kBytesPerMiB;
using base::Mebibytes;
using base::Micros;
using base::SignedMicros;
using base::SignedPercent;
namespace {

// Longest cell printed whole (a kernel's name is cut in the middle past it).
constexpr size_t kCellWidth = 80;
// --wide: names whole (issue 45).
constexpr size_t kWholeCells = std::numeric_limits<size_t>::max();

// Memory rows printed in table format (CSV and JSON carry all).
constexpr size_t kMemoryRowsShown = 20;

using differ::DisplayText;

std::string Significance(const v1::Noise& noise) {
  if (!noise.has_interval()) return "-";
  return noise.significant() ? "yes" : "no";
}

std::string Interval(const v1::Noise& noise) {
  if (!noise.has_interval()) return "-";
  return absl::StrFormat("[%+.1f, %+.1f]", noise.ci_low(), noise.ci_high());
}

std::string OverviewValue(const v1::OverviewRow& row, double value) {
  if (row.unit() == v1::VALUE_UNIT_BYTES)
    return value == 0 ? "-" : Mebibytes(value) + " MiB";
  if (row.unit() == v1::VALUE_UNIT_FRACTION)
    return absl::StrFormat("%.1f%%", value * 100);
  if (row.unit() == v1::VALUE_UNIT_PERCENT)
    return absl::StrFormat("%.1f%%", value);
  if (row.unit() == v1::VALUE_UNIT_US) return Micros(value);
  return absl::StrFormat("%g", value);
}

std::string OverviewDelta(const v1::OverviewRow& row) {
  const double d = row.delta();
  if (row.unit() == v1::VALUE_UNIT_BYTES)
    return absl::StrFormat("%+.1f MiB", d / kBytesPerMiB);
  if (row.unit() == v1::VALUE_UNIT_FRACTION)
    return absl::StrFormat("%+.1f pp", d * 100);
  if (row.unit() == v1::VALUE_UNIT_PERCENT)
    return absl::StrFormat("%+.1f pp", d);
  if (row.unit() == v1::VALUE_UNIT_US) return SignedMicros(d);
  return absl::StrFormat("%+g", d);
}

TextTable OverviewTable(const v1::Overview& overview) {
  TextTable table({{"metric", Align::kLeft},
                   {"baseline"},
                   {"experimental"},
                   {"delta"},
                   {"delta %"},
                   {"95% CI of delta", Align::kRight, 1},
                   {"significant"}});
  for (const v1::OverviewRow& row : overview.rows()) {
    if (row.unit() == v1::VALUE_UNIT_UNSPECIFIED &&
        !row.baseline_text().empty()) {
      table.AddRow(
          {DisplayText(row.metric()), row.baseline_text(),
           row.experimental_text(),
           row.baseline_text() == row.experimental_text() ? "same" : "differs",
           "", "", ""});
      continue;
    }
    // A value a side does not have is "-", and so is every comparison with it.
    const bool missing = row.baseline_missing() || row.experimental_missing();
    table.AddRow(
        {row.unit() == v1::VALUE_UNIT_US ? DisplayText(row.metric()) + " (us)"
                                         : DisplayText(row.metric()),
         row.baseline_missing() ? "-" : OverviewValue(row, row.baseline()),
         row.experimental_missing() ? "-"
                                    : OverviewValue(row, row.experimental()),
         missing ? "-" : OverviewDelta(row),
         missing ? "-"
                 : SignedPercent(row.delta_pct(), row.baseline(),
                                 row.experimental()),
         Interval(row.noise()), Significance(row.noise())});
  }
  return table;
}

bool HasBackwardValues(const v1::ModuleDiffNode& node) {
  if (node.baseline().backward_us() > 0 ||
      node.experimental().backward_us() > 0)
    return true;
  for (const v1::ModuleDiffNode& child : node.children()) {
    if (HasBackwardValues(child)) return true;
  }
  return false;
}

// `backward`: add each forward module's backward time on both sides. A node
// compared by host time under a parent compared by device time says so beside
// its delta.
// The module table's rows: the tree to `max_depth`; with --filter the nodes
// whose name matches and their ancestors; then, past `top` rows, the `top`
// nodes with the largest |delta| and their ancestors. `hidden`: the rows left
// out by `top`.
struct ModuleRows {
  std::set<const v1::ModuleDiffNode*> shown;
  int hidden = 0;
};

ModuleRows SelectModuleRows(const v1::ModuleDiffNode& root, int max_depth,
                            const base::NameFilter& filter, int top) {
  std::vector<std::pair<const v1::ModuleDiffNode*, const v1::ModuleDiffNode*>>
      nodes;  // (node, parent), in tree order
  std::map<const v1::ModuleDiffNode*, const v1::ModuleDiffNode*> parent_of;
  std::function<void(const v1::ModuleDiffNode&, const v1::ModuleDiffNode*, int)>
      walk = [&](const v1::ModuleDiffNode& node,
                 const v1::ModuleDiffNode* parent, int depth) {
        nodes.push_back({&node, parent});
        parent_of[&node] = parent;
        if (depth >= max_depth) return;
        for (const v1::ModuleDiffNode& child : node.children())
          walk(child, &node, depth + 1);
      };
  walk(root, nullptr, 0);
  auto with_ancestors =
      [&](const std::vector<const v1::ModuleDiffNode*>& keep) {
        std::set<const v1::ModuleDiffNode*> out = {&root};
        for (const v1::ModuleDiffNode* n : keep) {
          for (; n != nullptr && out.insert(n).second; n = parent_of[n]) {
          }
        }
        return out;
      };
  std::vector<const v1::ModuleDiffNode*> matched;
  for (const auto& [node, parent] : nodes) {
    if (node != &root && filter.Matches(node->name())) matched.push_back(node);
  }
  ModuleRows rows;
  rows.shown = with_ancestors(matched);
  if (top <= 0 || static_cast<int>(rows.shown.size()) <= top + 1) return rows;
  std::vector<const v1::ModuleDiffNode*> ranked(matched);
  std::stable_sort(ranked.begin(), ranked.end(), [](auto* a, auto* b) {
    return std::abs(a->delta().compare_us()) >
           std::abs(b->delta().compare_us());
  });
  ranked.resize(static_cast<size_t>(top));
  const size_t before = rows.shown.size();
  rows.shown = with_ancestors(ranked);
  rows.hidden = static_cast<int>(before - rows.shown.size());
  return rows;
}

void AddModuleRows(const v1::ModuleDiffNode& node,
                   v1::ModuleCompared parent_compared, int depth, int max_depth,
                   bool backward,
                   const std::set<const v1::ModuleDiffNode*>& shown,
                   TextTable& table) {
  if (!shown.contains(&node)) return;
  const std::string indent(static_cast<size_t>(2 * std::max(depth, 0)), ' ');
  std::string name = node.name();
  if (node.status() == v1::DIFF_STATUS_MATCHED &&
      !node.baseline_name().empty() &&
      node.baseline_name() != node.experimental_name()) {
    name = node.baseline_name() + " ~ " + node.experimental_name();
  }
  std::vector<std::string> row = {
      indent + name,
      node.index_path().empty() ? "-" : node.index_path(),
      DisplayText(node.status()),
      absl::StrFormat("%g", node.baseline().calls()),
      absl::StrFormat("%g", node.experimental().calls()),
      Micros(node.baseline().compare_us()),
      Micros(node.experimental().compare_us()),
      SignedMicros(node.delta().compare_us()) +
          (node.compared() == v1::MODULE_COMPARED_HOST_US &&
                   parent_compared == v1::MODULE_COMPARED_DEVICE_US
               ? " host"
               : ""),
      SignedPercent(node.delta_pct(), node.baseline().compare_us(),
                    node.experimental().compare_us()),
      Significance(node.noise())};
  if (backward) {
    const bool module = node.kind() == v1::MODULE_NODE_KIND_MODULE;
    row.push_back(module ? Micros(node.baseline().backward_us()) : "-");
    row.push_back(module ? Micros(node.experimental().backward_us()) : "-");
  }
  table.AddRow(std::move(row));
  if (depth >= max_depth) return;
  for (const v1::ModuleDiffNode& child : node.children()) {
    AddModuleRows(child, node.compared(), depth + 1, max_depth, backward, shown,
                  table);
  }
}

TextTable ModulesTable(const v1::ModuleDiffNode& root, int max_depth,
                       const std::set<const v1::ModuleDiffNode*>& shown) {
  const bool backward = HasBackwardValues(root);
  // Left out first to fit the terminal: the calls, the backward columns, the
  // index (drop ranks, highest first).
  std::vector<TextTable::Column> columns = {TreeNameColumn("module"),
                                            {"index", Align::kLeft, 1},
                                            {"status", Align::kLeft},
                                            {"calls base", Align::kRight, 3},
                                            {"calls exp", Align::kRight, 3},
                                            {"compare base (us)"},
                                            {"compare exp (us)"},
                                            {"delta (us)"},
                                            {"delta %"},
                                            {"significant"}};
  if (backward) {
    columns.push_back({"backward base (us)", Align::kRight, 2});
    columns.push_back({"backward exp (us)", Align::kRight, 2});
  }
  TextTable table(std::move(columns));
  AddModuleRows(root, v1::MODULE_COMPARED_UNSPECIFIED, 0, max_depth, backward,
                shown, table);
  return table;
}

TextTable OperatorsTable(const v1::DiffReport& report) {
  // Left out first to fit the terminal: the totals not compared (device totals
  // of a CPU run are all 0), then the calls; the compared totals stay.
  const bool device = std::any_of(
      report.operators().begin(), report.operators().end(),
      [](const v1::OperatorDiff& r) {
        return r.compared() == v1::OPERATOR_COMPARED_DEVICE_TOTAL_US;
      });
  const int host_drop = device ? 4 : 0, device_drop = device ? 0 : 4;
  TextTable table({{"operator", Align::kLeft},
                   {"change", Align::kLeft},
                   {"calls base", Align::kRight, 2},
                   {"calls exp", Align::kRight, 2},
                   {"host total base", Align::kRight, host_drop},
                   {"host total exp", Align::kRight, host_drop},
                   {"device total base", Align::kRight, device_drop},
                   {"device total exp", Align::kRight, device_drop},
                   {"delta compared (us)"},
                   {"delta %"},
                   {"significant"}});
  for (const v1::OperatorDiff& row : report.operators()) {
    const bool device = row.compared() == v1::OPERATOR_COMPARED_DEVICE_TOTAL_US;
    const double a = device ? row.baseline().device_total_us()
                            : row.baseline().host_total_us();
    const double b = device ? row.experimental().device_total_us()
                            : row.experimental().host_total_us();
    std::string name = row.name();
    if (!row.input_shapes().empty()) name += " " + row.input_shapes();
    table.AddRow({name, DisplayText(row.change()),
                  absl::StrFormat("%g", row.baseline().calls()),
                  absl::StrFormat("%g", row.experimental().calls()),
                  Micros(row.baseline().host_total_us()),
                  Micros(row.experimental().host_total_us()),
                  Micros(row.baseline().device_total_us()),
                  Micros(row.experimental().device_total_us()),
                  SignedMicros(b - a) + (device ? " dev" : " host"),
                  SignedPercent(DeltaPercent(a, b), a, b),
                  Significance(row.noise())});
  }
  return table;
}

TextTable KernelsTable(const v1::DiffReport& report) {
  // --kernels-by op: the launching operator in a column of its own, as `show`
  // prints it, not inside the (cut) kernel name.
  const bool by_op =
      std::any_of(report.kernels().begin(), report.kernels().end(),
                  [](const v1::KernelDiff& r) { return !r.op_name().empty(); });
  // Left out first to fit the terminal: the means, then the calls.
  std::vector<TextTable::Column> columns = {KernelNameColumn("kernel"),
                                            {"change", Align::kLeft},
                                            {"calls base", Align::kRight, 2},
                                            {"calls exp", Align::kRight, 2},
                                            {"total base (us)"},
                                            {"total exp (us)"},
                                            {"mean base", Align::kRight, 3},
                                            {"mean exp", Align::kRight, 3},
                                            {"delta total (us)"},
                                            {"delta %"},
                                            {"significant"}};
  if (by_op) {
    columns.insert(columns.begin() + 1, {"operator", Align::kLeft});
    // Two name columns: the percentage and the totals go too before the
    // names are cut short (the delta in us stays).
    for (TextTable::Column& c : columns) {
      if (c.header == "delta %" || c.header.starts_with("total ")) c.drop = 1;
    }
  }
  TextTable table(std::move(columns));
  for (const v1::KernelDiff& row : report.kernels()) {
    std::vector<std::string> cells = {
        row.name(),
        DisplayText(row.change()),
        absl::StrFormat("%g", row.baseline().calls()),
        absl::StrFormat("%g", row.experimental().calls()),
        Micros(row.baseline().total_us()),
        Micros(row.experimental().total_us()),
        Micros(row.baseline().mean_us()),
        Micros(row.experimental().mean_us()),
        SignedMicros(row.delta().total_us()),
        SignedPercent(row.delta_pct().total_us(), row.baseline().total_us(),
                      row.experimental().total_us()),
        Significance(row.noise())};
    if (by_op) cells.insert(cells.begin() + 1, row.op_name());
    table.AddRow(std::move(cells));
  }
  return table;
}

// Per-rank rows in the table formats: all of them, or with more than `top`
// (0: no limit) the `top` that matter most, in that order, and how many were
// left out. CSV and JSON keep every rank.
template <typename Row>
struct ShownRanks {
  std::vector<const Row*> rows;
  size_t hidden = 0;
};

// Each side's ranks by compute (step time minus communication), the slowest
// first: the slowest compute, if marked, is first. With `top` rows in all, each
// side gets its half.
ShownRanks<v1::RankSteps> SelectRankSteps(
    const google::protobuf::RepeatedPtrField<v1::RankSteps>& ranks, int top) {
  ShownRanks<v1::RankSteps> out;
  for (const v1::RankSteps& r : ranks) out.rows.push_back(&r);
  if (top <= 0 || out.rows.size() <= static_cast<size_t>(top)) return out;
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [](const v1::RankSteps* x, const v1::RankSteps* y) {
                     if (x->side() != y->side())
                       return x->side() == v1::RUN_SIDE_BASELINE;
                     return x->compute_us() > y->compute_us();
                   });
  const size_t per_side = std::max<size_t>(1, static_cast<size_t>(top) / 2);
  std::vector<const v1::RankSteps*> kept;
  std::map<v1::RunSide, size_t> taken;
  for (const v1::RankSteps* r : out.rows) {
    if (taken[r->side()]++ < per_side) kept.push_back(r);
  }
  out.hidden = out.rows.size() - kept.size();
  out.rows = std::move(kept);
  return out;
}

// The ranks that arrived last most often (on either side), then those whose
// wait or exposed time changed most.
ShownRanks<v1::RankCommunicationDiff> SelectRankCommunication(
    const google::protobuf::RepeatedPtrField<v1::RankCommunicationDiff>& ranks,
    int top) {
  ShownRanks<v1::RankCommunicationDiff> out;
  for (const v1::RankCommunicationDiff& r : ranks) out.rows.push_back(&r);
  if (top <= 0 || out.rows.size() <= static_cast<size_t>(top)) return out;
  auto last = [](const v1::RankCommunicationDiff* r) {
    return std::max(r->baseline().last_arrivals(),
                    r->experimental().last_arrivals());
  };
  auto change = [](const v1::RankCommunicationDiff* r) {
    return std::abs(r->delta().wait_us()) + std::abs(r->delta().exposed_us());
  };
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [&](const v1::RankCommunicationDiff* x,
                       const v1::RankCommunicationDiff* y) {
                     if (last(x) != last(y)) return last(x) > last(y);
                     return change(x) > change(y);
                   });
  out.hidden = out.rows.size() - static_cast<size_t>(top);
  out.rows.resize(static_cast<size_t>(top));
  return out;
}

TextTable RanksTable(const std::vector<const v1::RankSteps*>& rows) {
  // Left out first to fit the terminal: the small categories, then the worker
  // name and the rest of the breakdown; step time, compute, communication and
  // the mark stay.
  TextTable table({{"side", Align::kLeft},
                   {"rank"},
                   {"worker", Align::kLeft, 3},
                   {"steps", Align::kRight, 2},
                   {"step time (us)"},
                   {"compute (us)"},
                   {"kernel", Align::kRight, 2},
                   {"memcpy", Align::kRight, 5},
                   {"memset", Align::kRight, 5},
                   {"communication"},
                   {"runtime", Align::kRight, 4},
                   {"dataloader", Align::kRight, 5},
                   {"cpu exec", Align::kRight, 3},
                   {"other", Align::kRight, 4},
                   {"slowest compute", Align::kLeft}});
  for (const v1::RankSteps* row : rows) {
    const v1::RankSteps& r = *row;
    const v1::StepStats& s = r.average_step();
    table.AddRow({DisplayText(r.side()), base::StrCat(r.rank()),
                  r.worker_name(), base::StrCat(r.steps()),
                  Micros(s.duration_us()), Micros(r.compute_us()),
                  Micros(s.kernel_us()), Micros(s.memcpy_us()),
                  Micros(s.memset_us()), Micros(s.communication_us()),
                  Micros(s.runtime_us()), Micros(s.dataloader_us()),
                  Micros(s.cpu_exec_us()), Micros(s.other_us()),
                  r.slowest_compute() ? "yes" : ""});
  }
  return table;
}

TextTable HtaTable(const v1::DiffReport& report) {
  // HTA's column names; the counts are left out first to fit the terminal.
  TextTable table({KernelNameColumn("name"),
                   {"baseline_counts", Align::kRight, 2},
                   {"baseline_total_duration_us"},
                   {"experimental_counts", Align::kRight, 2},
                   {"experimental_total_duration_us"},
                   {"diff_counts", Align::kRight, 3},
                   {"diff_duration_us"},
                   {"change", Align::kLeft, 1}});
  for (const v1::HtaRow& row : report.hta_rows()) {
    table.AddRow({row.name(), base::StrCat(row.baseline_counts()),
                  absl::StrFormat("%.0f", row.baseline_total_duration_us()),
                  base::StrCat(row.experimental_counts()),
                  absl::StrFormat("%.0f", row.experimental_total_duration_us()),
                  base::StrCat(row.diff_counts()),
                  absl::StrFormat("%.0f", row.diff_duration_us()),
                  DisplayText(row.change())});
  }
  return table;
}

// Collectives of both sides: pooled over message sizes (`pooled`), or one row
// per size.
TextTable CollectivesTable(
    const google::protobuf::RepeatedPtrField<v1::CollectiveDiff>& rows,
    bool pooled) {
  // Left out first to fit the terminal: bus bandwidth, the transfer and the
  // wait's significance, then the calls; size, time, wait and change stay.
  TextTable table({{"collective", Align::kLeft},
                   {"group", Align::kLeft, 1},
                   {pooled ? "bytes/call" : "message"},
                   {"calls", Align::kRight, 2},
                   {"calls'", Align::kRight, 2},
                   {"time (us)"},
                   {"time' (us)"},
                   {"delta %"},
                   {"transfer'", Align::kRight, 3},
                   {"wait (us)"},
                   {"wait' (us)"},
                   {"wait sig", Align::kRight, 3},
                   {"busbw GB/s", Align::kRight, 4},
                   {"busbw'", Align::kRight, 4},
                   {"change", Align::kLeft}});
  for (const v1::CollectiveDiff& row : rows) {
    const v1::CollectiveValues& a = row.baseline();
    const v1::CollectiveValues& b = row.experimental();
    // A size the trace does not record is "-", not "0 B", and so is the
    // bandwidth computed from it.
    const bool missing[2] = {row.baseline_size_missing(),
                             row.experimental_size_missing()};
    const std::string size =
        missing[0] && missing[1] ? std::string("-")
        : pooled                 ? base::StrCat(
                                       missing[0] ? "-" : BytesText(a.bytes_per_call()), " -> ",
                       missing[1] ? "-" : BytesText(b.bytes_per_call()))
        : missing[0] || missing[1]
            ? std::string("-")
            : base::StrCat(BytesText(static_cast<double>(row.bytes_per_call())),
                           row.dtype().empty() ? "" : " " + row.dtype());
    auto busbw = [&](int side, const v1::CollectiveValues& v) {
      return missing[side] ? std::string("-")
                           : absl::StrFormat("%.3g", v.busbw_gbps());
    };
    table.AddRow(
        {row.collective(),
         row.process_group().empty() ? "default" : row.process_group(), size,
         CountText(a.calls()), CountText(b.calls()), Micros(a.time_us()),
         Micros(b.time_us()),
         SignedPercent(row.delta_pct().time_us(), a.time_us(), b.time_us()),
         Micros(b.transfer_us()), Micros(a.wait_us()), Micros(b.wait_us()),
         Significance(row.wait_noise()), busbw(0, a), busbw(1, b),
         DisplayText(row.change())});
  }
  return table;
}

TextTable RankCommunicationTable(
    const std::vector<const v1::RankCommunicationDiff*>& rows) {
  // Left out first to fit the terminal: the significance marks, the overlap,
  // then the collective time; exposed time, wait and last arrivals stay.
  TextTable table({{"rank"},
                   {"collective (us)", Align::kRight, 2},
                   {"collective'", Align::kRight, 2},
                   {"exposed (us)"},
                   {"exposed'"},
                   {"exposed sig", Align::kRight, 4},
                   {"overlap", Align::kRight, 3},
                   {"overlap'", Align::kRight, 3},
                   {"wait (us)"},
                   {"wait'"},
                   {"wait sig", Align::kRight, 4},
                   {"last"},
                   {"last'"}});
  auto value = [](bool missing, const std::string& text) {
    return missing ? std::string("-") : text;
  };
  for (const v1::RankCommunicationDiff* row : rows) {
    const v1::RankCommunicationDiff& r = *row;
    const bool ma = r.baseline_missing(), mb = r.experimental_missing();
    const v1::RankCommunicationValues& a = r.baseline();
    const v1::RankCommunicationValues& b = r.experimental();
    table.AddRow(
        {base::StrCat(r.rank()), value(ma, Micros(a.collective_us())),
         value(mb, Micros(b.collective_us())),
         value(ma, Micros(a.exposed_us())), value(mb, Micros(b.exposed_us())),
         Significance(r.exposed_noise()),
         value(ma, absl::StrFormat("%.0f%%", 100 * a.overlap_ratio())),
         value(mb, absl::StrFormat("%.0f%%", 100 * b.overlap_ratio())),
         value(ma, Micros(a.wait_us())), value(mb, Micros(b.wait_us())),
         Significance(r.wait_noise()),
         value(ma, base::StrCat(a.last_arrivals(), "/", a.instances())),
         value(mb, base::StrCat(b.last_arrivals(), "/", b.instances()))});
  }
  return table;
}

// The findings as a numbered list that fits kFindingsWidth columns (or the
// terminal, when narrower).
constexpr size_t kFindingsWidth = 100;

std::string FindingsText(const v1::DiffReport& report, size_t line_width) {
  const size_t width =
      line_width > 0 ? std::min(kFindingsWidth, line_width) : kFindingsWidth;
  std::string out = "What changed\n";
  int number = 0;
  for (const v1::Finding& finding : report.findings())
    out += WrapWords(absl::StrFormat("%2d. ", ++number), finding.text(), width);
  return out + "\n";
}

// "5 kept steps per rank": a count prints as one; a mean over ranks that kept
// different numbers of steps keeps its decimal ("4.5").
std::string KeptStepsPerRank(double steps) {
  const double whole = std::round(steps);
  const bool integral = std::abs(steps - whole) < 1e-9;
  return base::StrCat(
      integral ? base::StrCat(static_cast<int64_t>(whole))
               : absl::StrFormat("%.1f", steps),
      integral && whole == 1 ? " kept step per rank" : " kept steps per rank");
}

std::string SideLine(const char* label, const v1::RunSummary& s,
                     size_t line_width) {
  const std::string ranks =
      base::RankRanges({s.ranks().data(), static_cast<size_t>(s.ranks_size())});
  return WrapWords(
      absl::StrFormat("%-12s ", label),
      absl::StrFormat("%s: %s %s, %s (%d dropped), %s", s.run(),
                      s.ranks_size() == 1 ? "rank" : "ranks", ranks,
                      KeptStepsPerRank(s.steps_per_rank()), s.steps_dropped(),
                      s.device_name().empty() ? "CPU" : s.device_name()),
      line_width);
}

// Whether the command line named `view` (--view), so an empty table of it is
// said rather than left out.
bool Asked(const v1::DiffReport& report, v1::DiffView view) {
  for (int v : report.options().views()) {
    if (v == view) return true;
  }
  return false;
}

}  // namespace

std::string DiffFindingsText(const v1::DiffReport& report, size_t line_width) {
  return FindingsText(report, line_width);
}

std::string DiffSideLine(const char* label, const v1::RunSummary& run,
                         size_t line_width) {
  return SideLine(label, run, line_width);
}

size_t TerminalWidth() {
  constexpr size_t kDefault = 120, kMin = 40;
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr) {
    size_t width = 0;
    if (absl::SimpleAtoi(columns, &width) && width >= kMin) return width;
  }
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 &&
      size.ws_col >= kMin)
    return size.ws_col;
  return kDefault;
}

absl::StatusOr<std::string> RenderDiffReport(const v1::DiffReport& report,
                                             const DiffRenderOptions& options) {
  if (options.format == OutputFormat::kJson) return ToJson(report);
  if (options.format == OutputFormat::kCsv) {
    return absl::InternalError("CSV is written by RenderDiffCsv (diff_csv.h)");
  }
  std::string out;
  auto section = [&](const std::string& title, const TextTable& table) {
    if (table.row_count() == 0) return;
    out += base::StrCat(
        WrapWords("", title, options.line_width),
        table.RenderText(options.line_width > 0 ? kCellWidth : kWholeCells,
                         options.line_width),
        "\n");
  };
  // An asked-for view with nothing to show says so.
  auto none = [&](v1::DiffView view, const std::string& text) {
    if (Asked(report, view)) out += text + "\n\n";
  };
  auto on_cpu = [](const v1::RunSummary& s) {
    return s.device_name().empty() || s.device_name() == "CPU";
  };
  const bool cpu_only =
      on_cpu(report.baseline()) && on_cpu(report.experimental());
  out += SideLine("baseline", report.baseline(), options.line_width);
  out += SideLine("experimental", report.experimental(), options.line_width);
  for (const std::string& warning : report.warnings())
    out += WrapWords("warning: ", warning, options.line_width);
  out += "\n";
  if (report.options().compare() == v1::COMPARE_MODE_HTA) {
    section(
        "HTA compare_traces (integer us; counts and durations summed over the "
        "chosen ranks and steps)",
        HtaTable(report));
    return out;
  }
  if (report.findings_size() > 0)
    out += FindingsText(report, options.line_width);
  const bool per_step = report.options().normalize() != v1::NORMALIZATION_TOTAL;
  const std::string unit = per_step ? "per step, mean over ranks"
                                    : "total over the window, mean over ranks";
  section("Overview (mean per step)", OverviewTable(report.overview()));
  const ShownRanks<v1::RankSteps> rank_steps =
      SelectRankSteps(report.ranks(), report.options().top());
  section("Per rank", RanksTable(rank_steps.rows));
  if (rank_steps.hidden > 0) {
    out += base::StrCat("(", rank_steps.hidden,
                        " more ranks: the slowest of each side by compute are "
                        "shown; --top 0 lists them all, --format csv or json "
                        "has every rank)\n\n");
  }
  if (report.has_modules()) {
    // --filter and --top pick the rows of the table formats (JSON keeps the
    // tree whole: the findings and the HTML page read all of it).
    PD_ASSIGN_OR_RETURN(const base::NameFilter filter,
                        base::NameFilter::Compile(report.options().filter()));
    const ModuleRows rows = SelectModuleRows(
        report.modules(), options.module_depth, filter, report.options().top());
    section(base::StrCat("Modules (", unit,
                         "; compare = device time where the node ran device "
                         "work, else host time)"),
            ModulesTable(report.modules(), options.module_depth, rows.shown));
    if (rows.hidden > 0) {
      out += base::StrCat("(", rows.hidden, " more module row",
                          rows.hidden == 1 ? "" : "s", " to --depth ",
                          options.module_depth,
                          ", the largest changes shown: --top 0 lists them "
                          "all, --filter REGEX picks by name)\n\n");
    }
  }
  if (!report.has_communication() ||
      report.communication().by_collective_size() +
              report.communication().collectives_size() ==
          0) {
    none(v1::DIFF_VIEW_COMMUNICATION,
         "Communication: no collectives in either run");
  }
  if (report.has_communication() &&
      (report.communication().by_collective_size() > 0 ||
       report.communication().ranks_size() > 0)) {
    const v1::CommunicationDiff& c = report.communication();
    if (c.by_collective_size() > 0) {
      out += "Communication\n";
      out += WrapWords("  baseline:     ", c.baseline_verdict(),
                       options.line_width);
      out += WrapWords("  experimental: ", c.experimental_verdict(),
                       options.line_width);
      out += WrapWords("",
                       "(' = experimental; transfer = the shortest duration "
                       "of an instance over its ranks, wait = duration - "
                       "transfer)",
                       options.line_width);
      out += "\n";
    }
    section(base::StrCat("Collectives (", unit, ")"),
            CollectivesTable(c.by_collective(), true));
    section(base::StrCat("Collectives by message size (", unit, ")"),
            CollectivesTable(c.collectives(), false));
    if (c.by_collective_size() > 0) {
      const ShownRanks<v1::RankCommunicationDiff> shown =
          SelectRankCommunication(c.ranks(), report.options().top());
      section(base::StrCat("Communication per rank (",
                           per_step ? "per step" : "total over the window",
                           "; last = instances it arrived last at / ran with "
                           "another rank)"),
              RankCommunicationTable(shown.rows));
      if (shown.hidden > 0) {
        out += base::StrCat(
            "(", shown.hidden,
            " more ranks: those that arrived last most often, then the "
            "largest wait and exposed changes, are shown; --top 0 lists them "
            "all, --format csv or json has every rank)\n\n");
      }
    }
  }
  if (report.memory().devices_size() + report.memory().operators_size() == 0) {
    none(v1::DIFF_VIEW_MEMORY,
         "Memory: no memory events in either run (torch.profiler records them "
         "with profile_memory=True)");
  } else {
    const v1::MemoryDiff& m = report.memory();
    out += MemorySourceLine(m) + "(' = experimental)\n\n";
    section(
        "Memory per device (over the kept steps; peaks and averages mean over "
        "ranks)",
        MemoryDevicesTable(m));
    section(
        "Memory alive at the peak (frees matched to allocations by address)",
        MemoryHoldersTable(m));
    const size_t shown = kMemoryRowsShown;
    for (const bool modules : {false, true}) {
      const int rows = modules ? m.modules_size() : m.operators_size();
      section(base::StrCat("Memory by ", modules ? "module" : "operator", " (",
                           unit, "; by |delta allocation bytes|)"),
              MemoryRowsTable(m, modules, shown));
      if (static_cast<size_t>(rows) > shown) {
        out += base::StrCat(
            "(", rows - static_cast<int>(shown),
            " more rows: --format json or csv lists them all)\n\n");
      }
    }
  }
  // The node's path when the report has the module tree, else --path as given.
  const std::string scope =
      report.options().path().empty()
          ? ""
          : " inside " +
                (report.has_modules() && !report.modules().path().empty()
                     ? report.modules().path()
                     : report.options().path());
  section(base::StrCat("Operators", scope, " (", unit, ")"),
          OperatorsTable(report));
  if (report.operators_size() == 0)
    none(v1::DIFF_VIEW_OPERATORS,
         base::StrCat("Operators", scope, ": none in either run"));
  section(base::StrCat("Kernels", scope, " (", unit, ")"),
          KernelsTable(report));
  if (report.kernels_size() == 0)
    none(v1::DIFF_VIEW_KERNELS,
         base::StrCat("Kernels", scope, ": none in either run",
                      cpu_only ? " (CPU only)" : ""));
  return out;
}

}  // namespace profdiff::client
