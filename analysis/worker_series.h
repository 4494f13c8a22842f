// One worker's values of one row of a table (M metrics): its totals and one
// value per sample slot, and what they add to the row's reduced metrics
// (v1::ReducedMetric). A worker's slots are its kept steps; a worker that kept
// no step has one slot holding its totals (docs/semantics.md §8).
#ifndef PROFDIFF_ANALYSIS_WORKER_SERIES_H_
#define PROFDIFF_ANALYSIS_WORKER_SERIES_H_

#include <cstdint>
#include <initializer_list>
#include <vector>

#include <google/protobuf/repeated_ptr_field.h>

#include "profdiff/v1/digest.pb.h"

namespace profdiff::analysis {

class WorkerSeries {
 public:
  // `metrics` values per slot; `kept_steps` >= 0.
  WorkerSeries(int metrics, int kept_steps);

  // Adds to the totals; without kept steps also to the one slot.
  void AddTotal(std::initializer_list<double> values);
  // Adds to slot `step_index`; a step outside the kept ones is ignored.
  void AddStep(int32_t step_index, std::initializer_list<double> values);

  int metrics() const { return metrics_; }
  int slots() const { return slots_; }
  double total(int m) const { return totals_[m]; }
  double slot(int s, int m) const { return values_[s * metrics_ + m]; }
  double& total(int m) { return totals_[m]; }
  double& slot(int s, int m) { return values_[s * metrics_ + m]; }

  // Adds this worker's share to `into`, one ReducedMetric per metric (made
  // when `into` is empty): the mean of its slots, its total, and its slots as
  // samples.
  void FoldInto(
      google::protobuf::RepeatedPtrField<v1::ReducedMetric>& into) const;

 private:
  int metrics_;
  int slots_;
  bool has_steps_;
  std::vector<double> totals_;
  std::vector<double> values_;  // slot-major
};

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_WORKER_SERIES_H_
