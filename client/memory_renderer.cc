#include "client/memory_renderer.h"

#include <absl/strings/str_format.h>

#include "base/number_format.h"
#include "base/str_cat.h"
#include "differ/display_text.h"

namespace profdiff::client {
using base::BytesText;
using base::DeltaPercent;
using base::SignedBytesText;
using base::SignedPercent;
namespace {

std::string SourceText(v1::MemorySource source) {
  switch (source) {
    case v1::MEMORY_SOURCE_EVENTS:
      return "[memory] events";
    case v1::MEMORY_SOURCE_SELF_CPU_MEMORY_USAGE:
      return "operators' Self CPU Memory Usage (legacy profiler: self increase "
             "only)";
    default:
      return "no memory data (profile_memory=True records it)";
  }
}

std::string Sig(const v1::Noise& noise) {
  if (!noise.has_interval()) return "-";
  return noise.significant() ? "yes" : "no";
}

// The peak's step as the trace numbers it, N of ProfilerStep#N, which the
// steps view prints (issue 44); a digest kept from before the id was recorded
// only knows which kept step it was.
std::string StepText(const v1::MemoryPeakPlace& place) {
  if (place.has_step()) return base::StrCat("step ", place.step());
  if (place.step_index() >= 0)
    return base::StrCat("kept step ", place.step_index() + 1);
  return "";
}

std::string PlaceText(const v1::MemoryPeakPlace& place) {
  if (place.operator_name().empty() && place.module_path().empty()) return "-";
  std::string text =
      place.operator_name().empty() ? "(no operator)" : place.operator_name();
  if (!place.module_path().empty()) text += " in " + place.module_path();
  const std::string step = StepText(place);
  return base::StrCat(text, " (", step, step.empty() ? "" : ", ", "rank ",
                      place.rank(), ")");
}

// "increased", or "increased (self increase)" when the row allocated nothing
// on either side and was judged on its self increase: the allocation columns
// beside it read 0 B.
std::string ChangeText(const v1::MemoryRowDiff& row) {
  const std::string change(differ::DisplayText(row.change()));
  return row.compared() == v1::MEMORY_COMPARED_SELF_INCREASE_BYTES
             ? change + " (self increase)"
             : change;
}

}  // namespace

std::string MemorySourceLine(const v1::MemoryDiff& memory) {
  return base::StrCat(
      "Memory: baseline from ", SourceText(memory.baseline_source()),
      "; experimental from ", SourceText(memory.experimental_source()), "\n");
}

TextTable MemoryDevicesTable(const v1::MemoryDiff& memory) {
  TextTable table({{"device", Align::kLeft},
                   {"peak"},
                   {"peak'"},
                   {"delta"},
                   {"delta %"},
                   {"average", Align::kRight, 2},
                   {"average'", Align::kRight, 2},
                   {"reserved", Align::kRight, 3},
                   {"reserved'", Align::kRight, 3},
                   {"peak at", Align::kLeft, 1},
                   {"peak' at", Align::kLeft, 1}});
  for (const v1::DeviceMemoryDiff& d : memory.devices()) {
    const double a = d.baseline_peak_bytes(), b = d.experimental_peak_bytes();
    table.AddRow(
        {d.device() + (d.allocated_from_bytes() ? " (from Bytes)" : ""),
         BytesText(a), BytesText(b), SignedBytesText(b - a),
         SignedPercent(DeltaPercent(a, b), a, b),
         BytesText(d.baseline_average_bytes()),
         BytesText(d.experimental_average_bytes()),
         BytesText(d.baseline_peak_reserved_bytes()),
         BytesText(d.experimental_peak_reserved_bytes()),
         PlaceText(d.baseline_peak()), PlaceText(d.experimental_peak())});
  }
  return table;
}

TextTable MemoryHoldersTable(const v1::MemoryDiff& memory) {
  TextTable table({{"device", Align::kLeft},
                   {"side", Align::kLeft},
                   {"allocated by", Align::kLeft},
                   {"alive at peak"},
                   {"blocks"}});
  for (const v1::DeviceMemoryDiff& d : memory.devices()) {
    for (const bool experimental : {false, true}) {
      const v1::MemoryPeakPlace& place =
          experimental ? d.experimental_peak() : d.baseline_peak();
      for (const v1::MemoryHolder& h : place.holders()) {
        table.AddRow({d.device(), experimental ? "experimental" : "baseline",
                      h.operator_name(),
                      BytesText(static_cast<double>(h.bytes())),
                      h.blocks() > 0 ? base::StrCat(h.blocks()) : "-"});
      }
    }
  }
  return table;
}

TextTable MemoryRowsTable(const v1::MemoryDiff& memory, bool modules,
                          size_t max_rows) {
  TextTable table({{modules ? "module" : "operator", Align::kLeft},
                   {"device", Align::kLeft},
                   {"allocs", Align::kRight, 3},
                   {"allocs'", Align::kRight, 3},
                   {"alloc bytes"},
                   {"alloc bytes'"},
                   {"delta"},
                   {"delta %"},
                   {"alloc sig"},
                   {modules ? "increase" : "self increase", Align::kRight, 2},
                   {modules ? "increase'" : "self increase'", Align::kRight, 2},
                   {"increase sig", Align::kRight, 2},
                   {modules ? "peak inside'" : "increase'", Align::kRight, 4},
                   {"change", Align::kLeft}});
  const auto& rows = modules ? memory.modules() : memory.operators();
  size_t shown = 0;
  for (const v1::MemoryRowDiff& row : rows) {
    if (max_rows > 0 && shown++ >= max_rows) break;
    const v1::MemoryValues& a = row.baseline();
    const v1::MemoryValues& b = row.experimental();
    std::string name = modules ? row.detail() : row.name();
    if (!modules && !row.detail().empty()) name += " " + row.detail();
    table.AddRow(
        {name, row.device(), absl::StrFormat("%.1f", a.allocation_count()),
         absl::StrFormat("%.1f", b.allocation_count()),
         BytesText(a.allocation_bytes()), BytesText(b.allocation_bytes()),
         SignedBytesText(row.delta().allocation_bytes()),
         SignedPercent(row.delta_pct().allocation_bytes(), a.allocation_bytes(),
                       b.allocation_bytes()),
         Sig(row.allocation_noise()), BytesText(a.self_increase_bytes()),
         BytesText(b.self_increase_bytes()), Sig(row.increase_noise()),
         modules ? BytesText(b.peak_allocated_bytes())
                 : BytesText(b.increase_bytes()),
         ChangeText(row)});
  }
  return table;
}

}  // namespace profdiff::client
