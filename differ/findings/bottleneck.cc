#include "differ/findings/bottleneck.h"

#include <cmath>
#include <optional>

#include <absl/strings/str_format.h>

#include "base/str_cat.h"
#include "differ/finding_evidence.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

std::string Percent(double fraction) {
  return absl::StrFormat("%.1f%%", fraction * 100);
}

// The device's shift, when GPU utilization moved by kBottleneckShiftPoints
// and the kernel or step time behind it changed.
std::optional<v1::Finding> DeviceShift(const FindingContext& c) {
  const v1::OverviewRow* utilization =
      c.Row(v1::OVERVIEW_METRIC_GPU_UTILIZATION);
  const v1::OverviewRow* kernel = c.Row(v1::OVERVIEW_METRIC_KERNEL);
  const v1::OverviewRow* step = c.step();
  if (utilization == nullptr || kernel == nullptr || step == nullptr) {
    return std::nullopt;
  }
  const double u[2] = {utilization->baseline(), utilization->experimental()};
  if (std::abs(u[1] - u[0]) * 100 < kBottleneckShiftPoints) return std::nullopt;
  const bool kernel_changed = RowChanged(*kernel, c.threshold());
  if (!kernel_changed && !c.step_changed()) return std::nullopt;
  const double s[2] = {step->baseline(), step->experimental()};
  // The GPU's idle time per step: what the host (or nothing) paces.
  const double idle[2] = {s[0] * (1 - u[0]), s[1] * (1 - u[1])};
  const bool host_bound[2] = {u[0] < kHostBoundBelow, u[1] < kHostBoundBelow};
  std::string text;
  if (!host_bound[0] && host_bound[1]) {
    text = "The run became host-bound";
  } else if (host_bound[0] && !host_bound[1]) {
    text = "The run became device-bound";
  } else {
    text = u[1] < u[0] ? "The GPU idles more of the step"
                       : "The GPU idles less of the step";
  }
  const double k[2] = {kernel->baseline(), kernel->experimental()};
  base::StrAppend(&text, ": the GPU is busy ", Percent(u[1]),
                  " of the step (was ", Percent(u[0]), "). Kernel time ",
                  k[1] < k[0] ? "fell " : "rose ", Duration(k[0]), " -> ",
                  Duration(k[1]), c.per_step(), " (", ChangePercent(k[0], k[1]),
                  ")");
  const bool apart = SameSign(k[1] - k[0], s[0] - s[1]);
  base::StrAppend(&text, apart ? ", but " : " and ", "the step takes ",
                  Duration(s[1]), " (was ", Duration(s[0]), ")");
  if (host_bound[1]) {
    base::StrAppend(&text, ", paced by the host: the GPU idles ",
                    Duration(idle[1]), " of it (was ", Duration(idle[0]), ")");
  } else if (!host_bound[1] && host_bound[0]) {
    base::StrAppend(&text, ", paced by the GPU, which idles ",
                    Duration(idle[1]), " of it (was ", Duration(idle[0]), ")");
  }
  FindingEvidenceList evidence;
  *evidence.Add() = OverviewEvidence(*utilization, c.threshold());
  *evidence.Add() = OverviewEvidence(*kernel, c.threshold());
  *evidence.Add() = OverviewEvidence(*step, c.threshold());
  return c.Make(v1::FINDING_KIND_BOTTLENECK, text + ".", idle[1] - idle[0],
                true, std::move(evidence));
}

// The DataLoader's share of the step, when it crossed into (or out of)
// input-bound.
std::optional<v1::Finding> InputShift(const FindingContext& c) {
  const v1::OverviewRow* loader = c.Row(v1::OVERVIEW_METRIC_DATALOADER);
  const v1::OverviewRow* step = c.step();
  if (loader == nullptr || step == nullptr || step->baseline() <= 0 ||
      step->experimental() <= 0 || !RowChanged(*loader, c.threshold())) {
    return std::nullopt;
  }
  const double share[2] = {loader->baseline() / step->baseline(),
                           loader->experimental() / step->experimental()};
  if (std::abs(share[1] - share[0]) * 100 < kInputShiftPoints ||
      std::max(share[0], share[1]) < kInputBoundShare) {
    return std::nullopt;
  }
  const bool became = share[1] > share[0];
  const std::string text = base::StrCat(
      became ? "The run became input-bound: loading data (DataLoader) takes "
             : "The run is no longer input-bound: loading data (DataLoader) "
               "takes ",
      Duration(loader->experimental()), " of the ",
      Duration(step->experimental()), " step (", Percent(share[1]), ", was ",
      Duration(loader->baseline()), ", ", Percent(share[0]), ")",
      c.ShareClause(loader->delta()), ".");
  FindingEvidenceList evidence;
  *evidence.Add() = OverviewEvidence(*loader, c.threshold());
  *evidence.Add() = OverviewEvidence(*step, c.threshold());
  return c.Make(v1::FINDING_KIND_BOTTLENECK, text, loader->delta(), true,
                std::move(evidence));
}

}  // namespace

std::vector<v1::Finding> BottleneckFindings(const FindingContext& context) {
  std::vector<v1::Finding> out;
  if (context.on_device()) {
    if (std::optional<v1::Finding> f = DeviceShift(context)) {
      out.push_back(*std::move(f));
    }
  }
  if (std::optional<v1::Finding> f = InputShift(context)) {
    out.push_back(*std::move(f));
  }
  return out;
}

}  // namespace profdiff::differ
