#include "client/multi_diff_renderer.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include <absl/strings/str_format.h>

#include "base/number_format.h"
#include "base/str_cat.h"
#include "client/gate_output.h"
#include "client/name_columns.h"
#include "client/text_table.h"
#include "differ/display_text.h"
#include "report/overview_cells.h"

namespace profdiff::client {
using base::Micros;
using base::SignedMicros;
using base::SignedPercent;
namespace {

using differ::DisplayText;
using report::IsTextRow;
using report::OverviewCell;

constexpr size_t kCellWidth = 80;

std::string RunLabel(size_t k) { return base::StrCat("run ", k + 1); }

std::string Render(const TextTable& table, size_t line_width) {
  return table.RenderText(
      line_width > 0 ? kCellWidth : std::numeric_limits<size_t>::max(),
      line_width);
}

// "+24.6%*": the change, starred when the report judged it significant.
std::string Delta(double pct, double baseline, double experimental,
                  bool significant) {
  return SignedPercent(pct, baseline, experimental) + (significant ? "*" : "");
}

TextTable OverviewTable(const std::vector<v1::DiffReport>& reports) {
  std::vector<TextTable::Column> columns = {{"metric", Align::kLeft},
                                            {"baseline"}};
  for (size_t k = 0; k < reports.size(); ++k) {
    columns.push_back({RunLabel(k)});
    columns.push_back({base::StrCat("delta ", k + 1)});
  }
  TextTable table(std::move(columns));
  for (const v1::OverviewRow& first : reports.front().overview().rows()) {
    std::vector<std::string> cells = {
        base::StrCat(DisplayText(first.metric()),
                     first.unit() == v1::VALUE_UNIT_US ? " (us)" : ""),
        OverviewCell(first, false)};
    for (const v1::DiffReport& report : reports) {
      const v1::OverviewRow* row = nullptr;
      for (const v1::OverviewRow& r : report.overview().rows()) {
        if (r.metric() == first.metric()) row = &r;
      }
      if (row == nullptr) {
        cells.insert(cells.end(), {"-", "-"});
        continue;
      }
      cells.push_back(OverviewCell(*row, true));
      const bool text = IsTextRow(*row);
      const bool missing =
          row->baseline_missing() || row->experimental_missing();
      cells.push_back(
          text || missing ? ""
          : row->unit() == v1::VALUE_UNIT_FRACTION
              ? absl::StrFormat("%+.1f pp%s", 100 * row->delta(),
                                row->noise().significant() ? "*" : "")
              : Delta(row->delta_pct(), row->baseline(), row->experimental(),
                      row->noise().significant()));
    }
    table.AddRow(std::move(cells));
  }
  return table;
}

// A row of one of the side-by-side tables: its baseline value and, per run,
// its experimental value and whether the change is significant (absent: the
// run's report has no such row).
struct SideBySide {
  std::vector<std::string> key_cells;
  double baseline = 0;
  bool has_baseline = false;
  std::vector<std::optional<std::pair<double, bool>>> runs;

  double LargestChange() const {
    double largest = 0;
    for (const auto& run : runs) {
      if (run) largest = std::max(largest, std::abs(run->first - baseline));
    }
    return largest;
  }
};

// Rows keyed by `key`, in first-seen order; `fill(report row)` gives the
// key cells, baseline, experimental and significance.
template <typename Row, typename KeyOf, typename ValuesOf>
std::vector<SideBySide> Join(
    const std::vector<v1::DiffReport>& reports,
    const std::function<const google::protobuf::RepeatedPtrField<Row>&(
        const v1::DiffReport&)>& rows_of,
    KeyOf key_of, ValuesOf values_of) {
  std::vector<SideBySide> out;
  std::map<std::string, size_t> index;
  for (size_t k = 0; k < reports.size(); ++k) {
    for (const Row& row : rows_of(reports[k])) {
      auto [key, cells] = key_of(row);
      auto [it, added] = index.try_emplace(key, out.size());
      if (added) {
        SideBySide& s = out.emplace_back();
        s.key_cells = std::move(cells);
        s.runs.resize(reports.size());
      }
      SideBySide& s = out[it->second];
      const auto [baseline, experimental, significant, in_baseline] =
          values_of(row);
      if (in_baseline && !s.has_baseline) {
        s.baseline = baseline;
        s.has_baseline = true;
      }
      s.runs[k] = std::pair(experimental, significant);
    }
  }
  return out;
}

TextTable RowsTable(std::vector<TextTable::Column> key_columns,
                    const std::string& unit, std::vector<SideBySide> rows,
                    size_t runs, int top, bool by_change = true) {
  if (by_change) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const SideBySide& a, const SideBySide& b) {
                       return a.LargestChange() > b.LargestChange();
                     });
  }
  if (top > 0 && rows.size() > static_cast<size_t>(top)) rows.resize(top);
  key_columns.push_back({base::StrCat("baseline (", unit, ")")});
  for (size_t k = 0; k < runs; ++k)
    key_columns.push_back({base::StrCat("delta ", k + 1, " (", unit, ")")});
  TextTable table(std::move(key_columns));
  for (SideBySide& row : rows) {
    std::vector<std::string> cells = std::move(row.key_cells);
    cells.push_back(row.has_baseline ? Micros(row.baseline) : "-");
    for (const auto& run : row.runs) {
      cells.push_back(run ? SignedMicros(run->first - row.baseline) +
                                (run->second ? "*" : "")
                          : "-");
    }
    table.AddRow(std::move(cells));
  }
  return table;
}

void ModuleRows(const v1::ModuleDiffNode& node, int depth, int max_depth,
                size_t k, std::map<std::string, size_t>& index,
                std::vector<SideBySide>& out, size_t runs) {
  const auto [it, added] = index.try_emplace(
      node.path().empty() ? std::string("(root)") : node.path(), out.size());
  if (added) {
    SideBySide& s = out.emplace_back();
    s.key_cells = {std::string(2 * static_cast<size_t>(depth), ' ') +
                   (node.path().empty() ? std::string("(root)") : node.name())};
    s.runs.resize(runs);
  }
  SideBySide& s = out[it->second];
  if (node.status() != v1::DIFF_STATUS_ADDED && !s.has_baseline) {
    s.baseline = node.baseline().compare_us();
    s.has_baseline = true;
  }
  if (node.status() != v1::DIFF_STATUS_REMOVED) {
    s.runs[k] = std::pair(
        node.experimental().compare_us(),
        node.noise().significant() || node.status() == v1::DIFF_STATUS_ADDED);
  }
  if (depth >= max_depth) return;
  for (const v1::ModuleDiffNode& child : node.children())
    ModuleRows(child, depth + 1, max_depth, k, index, out, runs);
}

}  // namespace

std::string RenderMultiDiffText(const std::vector<v1::DiffReport>& reports,
                                const DiffRenderOptions& options) {
  if (reports.empty()) return "";
  const size_t width = options.line_width;
  std::string out = DiffSideLine("baseline", reports.front().baseline(), width);
  for (size_t k = 0; k < reports.size(); ++k)
    out += DiffSideLine(RunLabel(k).c_str(), reports[k].experimental(), width);
  for (size_t k = 0; k < reports.size(); ++k) {
    for (const std::string& warning : reports[k].warnings())
      out += WrapWords(base::StrCat("warning: ", RunLabel(k), ": "), warning,
                       width);
  }
  out += "\n";
  for (size_t k = 0; k < reports.size(); ++k) {
    if (reports[k].findings_size() == 0) continue;
    out += WrapWords(
        "",
        base::StrCat("== ", RunLabel(k), " (", reports[k].experimental().run(),
                     ") against the baseline =="),
        width);
    out += DiffFindingsText(reports[k], width);
  }
  const v1::DiffReport& first = reports.front();
  const int top = first.options().top();
  out += WrapWords("",
                   "Overview (mean per step; delta = against the baseline, "
                   "* significant)",
                   width);
  out += Render(OverviewTable(reports), width) + "\n";
  if (first.has_modules()) {
    std::vector<SideBySide> rows;
    std::map<std::string, size_t> index;
    for (size_t k = 0; k < reports.size(); ++k) {
      ModuleRows(reports[k].modules(), 0, options.module_depth, k, index, rows,
                 reports.size());
    }
    // Tree order (not by change), every node to --depth.
    const TextTable table =
        RowsTable({TreeNameColumn("module")}, "us", std::move(rows),
                  reports.size(), /*top=*/0, /*by_change=*/false);
    out += WrapWords("",
                     "Modules (compare time per step: device where the node "
                     "ran device work, else host)",
                     width);
    out += Render(table, width) + "\n";
  }
  const auto operators = Join<v1::OperatorDiff>(
      reports,
      [](const v1::DiffReport& r)
          -> const google::protobuf::RepeatedPtrField<v1::OperatorDiff>& {
        return r.operators();
      },
      [](const v1::OperatorDiff& o) {
        return std::pair(
            base::StrCat(o.name(), "\t", o.input_shapes()),
            std::vector<std::string>{
                o.name(), o.compared() == v1::OPERATOR_COMPARED_DEVICE_TOTAL_US
                              ? "device"
                              : "host"});
      },
      [](const v1::OperatorDiff& o) {
        const bool device =
            o.compared() == v1::OPERATOR_COMPARED_DEVICE_TOTAL_US;
        return std::tuple(device ? o.baseline().device_total_us()
                                 : o.baseline().host_total_us(),
                          device ? o.experimental().device_total_us()
                                 : o.experimental().host_total_us(),
                          o.change() != v1::CHANGE_UNCHANGED,
                          o.change() != v1::CHANGE_ADDED);
      });
  if (!operators.empty()) {
    out += WrapWords("",
                     "Operators (total time per step, in the unit each is "
                     "judged in; the largest change in any run first)",
                     width);
    out += Render(RowsTable(
                      {{"operator", Align::kLeft}, {"unit", Align::kLeft, 1}},
                      "us", operators, reports.size(), top),
                  width) +
           "\n";
  }
  const auto kernels = Join<v1::KernelDiff>(
      reports,
      [](const v1::DiffReport& r)
          -> const google::protobuf::RepeatedPtrField<v1::KernelDiff>& {
        return r.kernels();
      },
      [](const v1::KernelDiff& k) {
        return std::pair(base::StrCat(k.name(), "\t", k.op_name()),
                         std::vector<std::string>{k.name()});
      },
      [](const v1::KernelDiff& k) {
        return std::tuple(k.baseline().total_us(), k.experimental().total_us(),
                          k.change() != v1::CHANGE_UNCHANGED,
                          k.change() != v1::CHANGE_ADDED);
      });
  if (!kernels.empty()) {
    out += WrapWords("",
                     "Kernels (total time per step; the largest change in "
                     "any run first)",
                     width);
    out += Render(RowsTable({KernelNameColumn("kernel")}, "us", kernels,
                            reports.size(), top),
                  width) +
           "\n";
  }
  for (size_t k = 0; k < reports.size(); ++k) {
    if (reports[k].gate_size() > 0) {
      out += base::StrCat(RunLabel(k), ": ");
      out += GateText(reports[k].gate(), width);
    }
  }
  return out;
}

}  // namespace profdiff::client
