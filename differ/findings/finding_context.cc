#include "differ/findings/finding_context.h"

#include "base/str_cat.h"
#include "differ/finding_evidence.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {

bool SameSign(double a, double b) {
  return (a > 0 && b > 0) || (a < 0 && b < 0);
}

FindingContext::FindingContext(const FindingInputs& in)
    : in_(in), per_step_(in.per_step ? " per step" : "") {
  step_ = Row(v1::OVERVIEW_METRIC_STEP_TIME);
  if (step_ != nullptr) {
    step_delta_ = step_->delta();
    step_changed_ = RowChanged(*step_, in.threshold);
  }
  on_device_ = Row(v1::OVERVIEW_METRIC_GPU_UTILIZATION) != nullptr;
}

const v1::OverviewRow* FindingContext::Row(v1::OverviewMetric metric) const {
  const v1::OverviewRow* row = RowOf(in_.overview, metric);
  if (row == nullptr || row->baseline_missing() ||
      row->experimental_missing()) {
    return nullptr;
  }
  return row;
}

v1::Finding FindingContext::Make(v1::FindingKind kind, std::string text,
                                 double delta_us, bool significant,
                                 FindingEvidenceList evidence) const {
  v1::Finding f;
  *f.mutable_evidence() = std::move(evidence);
  f.set_kind(kind);
  f.set_text(std::move(text));
  f.set_delta_us(delta_us);
  if (step_delta_ != 0) f.set_share_of_step_change(delta_us / step_delta_);
  f.set_significant(significant);
  return f;
}

std::string FindingContext::ShareClause(double delta_us) const {
  if (!step_changed_ || !SameSign(delta_us, step_delta_)) return "";
  return base::StrCat(", ", Share(delta_us / step_delta_),
                      " of the step-time change");
}

std::string FindingContext::AgainstTheStep(double device_delta_us) const {
  if (!step_changed_ || device_delta_us == 0 ||
      SameSign(device_delta_us, step_delta_)) {
    return "";
  }
  // Device time and wall time moved apart: the device's idle share of the
  // step moved the other way.
  return step_delta_ > 0
             ? "; the step grew nonetheless: the device idles more of it"
             : "; the step shrank nonetheless: the device idles less of it";
}

}  // namespace profdiff::differ
