// `profdiff diff --fail-on EXPR`: a CI gate over a diff report (issue 48).
// A condition is METRIC OP THRESHOLD, several joined by commas:
//   step_time>5%            an overview metric's change, relative
//   kernel>+2ms             ... or absolute, in its unit (us, ms, s)
//   gpu_utilization<-10pp   a fraction's change in percentage points
//   memory.peak>+512MiB     a device's peak (average, reserved) allocated
//   kernel:.*nccl.*>10%     any kernel whose name matches (RE2, anywhere in the
//   operator:aten::mm>1ms   name), operator, or module (its path)
//   module:Encoder>5%
// OP is >, >=, < or <=. A condition fails when a *significant* change crosses
// it: overview, operator, kernel and module changes as the report judged them
// (noise and --min-change); a device's memory figures are single values per
// run, so their change counts as it is. An added row is +inf% and a removed
// one -100%.
#ifndef PROFDIFF_DIFFER_REGRESSION_GATE_H_
#define PROFDIFF_DIFFER_REGRESSION_GATE_H_

#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include "base/name_filter.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {

struct GateCondition {
  enum class Subject { kOverview, kMemory, kKernel, kOperator, kModule };
  enum class Unit { kPercent, kPoints, kMicros, kBytes };
  std::string text;  // as given
  Subject subject = Subject::kOverview;
  v1::OverviewMetric metric = v1::OVERVIEW_METRIC_UNSPECIFIED;
  std::string memory_figure;  // peak, average, reserved
  base::NameFilter pattern;   // kernel, operator, module
  bool greater = true;        // > or >=; else < or <=
  bool inclusive = false;     // >= or <=
  Unit unit = Unit::kPercent;
  double threshold = 0;  // in `unit` (us for times, bytes for memory)

  // Whether `value` (in `unit`) crosses the threshold.
  bool Crosses(double value) const;
};

// The conditions of one or more --fail-on values. InvalidArgument starting
// "--fail-on" and naming the condition and what is wrong with it (an unknown
// metric lists the known ones).
absl::StatusOr<std::vector<GateCondition>> ParseGate(
    const std::vector<std::string>& values);

// Each condition against `report` (which must hold every operator and kernel
// row: no --top or --filter cut).
std::vector<v1::GateResult> EvaluateGate(
    const std::vector<GateCondition>& conditions, const v1::DiffReport& report);

// Whether any condition needs the operator, kernel or module rows.
bool GateReadsRows(const std::vector<GateCondition>& conditions);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_REGRESSION_GATE_H_
