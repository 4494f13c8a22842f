#include "differ/findings/step_time.h"

#include <absl/strings/str_format.h>

#include "base/str_cat.h"
#include "differ/finding_evidence.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {

std::optional<v1::Finding> StepTimeFinding(const FindingContext& c,
                                           bool anything) {
  const v1::OverviewRow* step = c.step();
  if (step == nullptr || step->baseline_missing() ||
      step->experimental_missing())
    return std::nullopt;
  const v1::OverviewRow& row = *step;
  const v1::Noise& noise = row.noise();
  const ChangeThreshold& threshold = c.threshold();
  const bool changed = RowChanged(row, threshold);
  const std::string values = base::StrCat(
      Duration(row.baseline()), " -> ", Duration(row.experimental()),
      c.per_step(), " (", SignedDuration(row.delta()), ", ",
      ChangePercent(row.baseline(), row.experimental()), ")");
  const std::string interval =
      noise.has_interval()
          ? base::StrCat("95% CI of the delta ", SignedDuration(noise.ci_low()),
                         " to ", SignedDuration(noise.ci_high()))
          : "";
  v1::Finding f;
  if (changed) {
    f = c.Make(v1::FINDING_KIND_STEP_TIME,
               base::StrCat("Step time ", values, ", significant (",
                            noise.has_interval()
                                ? interval
                                : "one step on a side: by the thresholds alone",
                            ")."),
               row.delta(), true);
  } else if (anything) {
    f = c.Make(v1::FINDING_KIND_STEP_TIME,
               base::StrCat("Step time ", values, ": not significant",
                            noise.has_interval() ? " (" + interval + ")" : "",
                            "; what did change follows."),
               row.delta(), false);
  } else {
    std::string why;
    if (noise.has_interval()) {
      const bool excludes_zero = noise.ci_low() > 0 || noise.ci_high() < 0;
      why = base::StrCat(
          "; the 95% CI of the delta, ", SignedDuration(noise.ci_low()), " to ",
          SignedDuration(noise.ci_high()),
          excludes_zero ? ", excludes 0 but the delta is under the thresholds ("
                        : ", includes 0 (thresholds: ",
          absl::StrFormat("%g", threshold.min_pct), "% and ",
          Duration(threshold.min_abs), "); per-step spread ",
          Duration(noise.baseline_stddev()), " baseline, ",
          Duration(noise.experimental_stddev()), " experimental");
    } else {
      why = base::StrCat("; one step on a side, so the thresholds alone (",
                         absl::StrFormat("%g", threshold.min_pct), "% and ",
                         Duration(threshold.min_abs), ") judge");
    }
    f = c.Make(
        v1::FINDING_KIND_NOISE,
        base::StrCat("No significant change: step time ", values, why, "."),
        row.delta(), false);
  }
  *f.add_evidence() = OverviewEvidence(row, threshold);
  return f;
}

}  // namespace profdiff::differ
