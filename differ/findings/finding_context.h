// What every finding rule (differ/findings/*.h) reads: the inputs, the step
// time's row and change, whether the runs ran device work, and how a finding
// is made and its share of the step's change said.
#ifndef PROFDIFF_DIFFER_FINDINGS_FINDING_CONTEXT_H_
#define PROFDIFF_DIFFER_FINDINGS_FINDING_CONTEXT_H_

#include <string>

#include <google/protobuf/repeated_ptr_field.h>

#include "differ/findings.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {

using FindingEvidenceList =
    google::protobuf::RepeatedPtrField<v1::FindingEvidence>;

class FindingContext {
 public:
  // `in` must outlive the context.
  explicit FindingContext(const FindingInputs& in);

  const FindingInputs& in() const { return in_; }
  const ChangeThreshold& threshold() const { return in_.threshold; }
  // " per step", or "" when values are totals over the window.
  const std::string& per_step() const { return per_step_; }
  // The step time's row when both sides have it, else nullptr.
  const v1::OverviewRow* step() const { return step_; }
  double step_delta() const { return step_delta_; }
  // Whether the step time changed significantly.
  bool step_changed() const { return step_changed_; }
  // The overview row of `metric` when both sides have a value, else nullptr.
  const v1::OverviewRow* Row(v1::OverviewMetric metric) const;
  // Both runs ran device work (GPU utilization on both sides).
  bool on_device() const { return on_device_; }

  // A finding of `kind`; its share of the step's change is set when the step
  // time changed.
  v1::Finding Make(v1::FindingKind kind, std::string text, double delta_us,
                   bool significant, FindingEvidenceList evidence = {}) const;
  // ", 60% of the step-time change", or "" when that is no share (the step
  // did not change, or `delta_us` is against it).
  std::string ShareClause(double delta_us) const;
  // For a device-time delta whose sign is against the step's: why the step
  // moved the other way ("; the step grew nonetheless: ..."); else "".
  std::string AgainstTheStep(double device_delta_us) const;

 private:
  const FindingInputs& in_;
  std::string per_step_;
  const v1::OverviewRow* step_ = nullptr;
  double step_delta_ = 0;
  bool step_changed_ = false;
  bool on_device_ = false;
};

bool SameSign(double a, double b);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_FINDINGS_FINDING_CONTEXT_H_
