#include "analysis/worker_series.h"

#include <algorithm>

#include "analysis/moments.h"

namespace profdiff::analysis {

WorkerSeries::WorkerSeries(int metrics, int kept_steps)
    : metrics_(metrics),
      slots_(std::max(kept_steps, 1)),
      has_steps_(kept_steps > 0),
      totals_(static_cast<size_t>(metrics), 0.0),
      values_(static_cast<size_t>(metrics * slots_), 0.0) {}

void WorkerSeries::AddTotal(std::initializer_list<double> values) {
  int m = 0;
  for (const double v : values) {
    if (m == metrics_) break;
    totals_[m] += v;
    if (!has_steps_) values_[m] += v;
    ++m;
  }
}

void WorkerSeries::AddStep(int32_t step_index,
                           std::initializer_list<double> values) {
  if (!has_steps_ || step_index < 0 || step_index >= slots_) return;
  int m = 0;
  for (const double v : values) {
    if (m == metrics_) break;
    values_[step_index * metrics_ + m] += v;
    ++m;
  }
}

void WorkerSeries::FoldInto(
    google::protobuf::RepeatedPtrField<v1::ReducedMetric>& into) const {
  while (into.size() < metrics_) into.Add();
  for (int m = 0; m < metrics_; ++m) {
    v1::ReducedMetric& r = into[m];
    double sum = 0;
    v1::Moments samples;
    for (int s = 0; s < slots_; ++s) {
      sum += slot(s, m);
      AddSample(slot(s, m), samples);
    }
    r.set_per_step(r.per_step() + sum / slots_);
    r.set_total(r.total() + totals_[m]);
    MergeMoments(samples, *r.mutable_samples());
  }
}

}  // namespace profdiff::analysis
