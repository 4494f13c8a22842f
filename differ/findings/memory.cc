#include "differ/findings/memory.h"

#include <cmath>
#include <string>
#include <string_view>

#include "base/str_cat.h"
#include "differ/finding_evidence.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

// "; on cuda:0 the experimental peak is in aten::addmm (Linear_0, step 2),
// and aten::mm allocates 2.5 MiB -> 10.0 MiB per step (+300%), the largest
// change": from the memory diff, on the device whose peak moved most; the
// side with the higher peak; the operator row with the largest significant
// allocation change of the peak's sign. "" without [memory] events.
std::string MemoryPlaces(const FindingContext& c, double peak_delta) {
  const v1::MemoryDiff* memory = c.in().memory;
  if (memory == nullptr) return "";
  const v1::DeviceMemoryDiff* device = nullptr;
  for (const v1::DeviceMemoryDiff& d : memory->devices()) {
    const double delta = d.experimental_peak_bytes() - d.baseline_peak_bytes();
    if (SameSign(delta, peak_delta) &&
        (device == nullptr ||
         std::abs(delta) > std::abs(device->experimental_peak_bytes() -
                                    device->baseline_peak_bytes())))
      device = &d;
  }
  if (device == nullptr) return "";
  const bool grew = peak_delta > 0;
  const v1::MemoryPeakPlace& place =
      grew ? device->experimental_peak() : device->baseline_peak();
  std::string out;
  if (!place.operator_name().empty()) {
    const std::string_view path = place.module_path();
    const std::string_view module = path.substr(path.rfind('/') + 1);
    // The trace's step id, N of ProfilerStep#N, as the steps view prints it
    // (issue 44); a digest kept from before it knows only the kept step.
    const std::string step =
        place.has_step() ? base::StrCat("step ", place.step())
        : place.step_index() >= 0
            ? base::StrCat("kept step ", place.step_index() + 1)
            : "";
    const std::string_view comma = module.empty() || step.empty() ? "" : ", ";
    out = base::StrCat("; on ", device->device(), " the ",
                       grew ? "experimental" : "baseline", " peak is in ",
                       place.operator_name());
    if (!module.empty() || !step.empty())
      base::StrAppend(&out, " (", module, comma, step, ")");
  }
  for (const v1::MemoryRowDiff& r : memory->operators()) {
    if (r.device() != device->device() || !r.allocation_noise().significant() ||
        !SameSign(r.delta().allocation_bytes(), peak_delta))
      continue;
    const double x = r.baseline().allocation_bytes();
    const double y = r.experimental().allocation_bytes();
    base::StrAppend(&out, out.empty() ? "; " : ", and ", r.name(),
                    " allocates ", Bytes(x), " -> ", Bytes(y), c.per_step(),
                    " (", ChangePercent(x, y), "), the largest change");
    break;
  }
  return out;
}

}  // namespace

std::optional<v1::Finding> MemoryFinding(const FindingContext& c) {
  const v1::OverviewRow* row =
      RowOf(c.in().overview, v1::OVERVIEW_METRIC_PEAK_MEMORY);
  if (row == nullptr || row->baseline_missing() ||
      row->experimental_missing() || row->baseline() <= 0 ||
      std::abs(row->delta()) < kMemoryShare * row->baseline())
    return std::nullopt;
  v1::Finding f =
      c.Make(v1::FINDING_KIND_MEMORY,
             base::StrCat("Peak memory ", Bytes(row->baseline()), " -> ",
                          Bytes(row->experimental()), " (",
                          ChangePercent(row->baseline(), row->experimental()),
                          ")", MemoryPlaces(c, row->delta()), "."),
             0, true);
  f.clear_share_of_step_change();
  f.set_delta_bytes(row->delta());
  *f.add_evidence() = OverviewEvidence(*row, c.threshold());
  return f;
}

}  // namespace profdiff::differ
