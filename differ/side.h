// One side of a diff: the workers of a run that take part (by rank), their kept
// steps as sample slots, and how a row's numbers become one run value
// (DESIGN.md "Multi-worker runs").
//
// Design:
// 1. A slot is one kept step of one worker; a worker with no kept step has one
// slot holding its
//    totals. Per-step samples for noise are the slot values, pooled over ranks.
// 2. The run value is the mean over ranks of the per-rank value: the per-step
// mean (default) or
//    the total over the profiled window (--normalize total).
#ifndef PROFDIFF_DIFFER_SIDE_H_
#define PROFDIFF_DIFFER_SIDE_H_

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::differ {

class Side {
 public:
  // Selects the workers of `run` whose rank is in `ranks` (all when empty).
  // `label` names the side in messages ("baseline"/"experimental").
  static absl::StatusOr<Side> Select(const v1::RunProfile& run,
                                     const std::vector<int32_t>& ranks,
                                     v1::Normalization normalize,
                                     std::string label);

  const std::vector<const v1::WorkerProfile*>& workers() const {
    return workers_;
  }
  const v1::RunProfile& run() const { return *run_; }
  const std::string& label() const { return label_; }
  size_t slot_count() const { return slot_count_; }
  size_t first_slot(size_t worker) const { return slot_offset_[worker]; }
  // Kept steps of a worker (0 when it has none: then its one slot holds its
  // totals).
  size_t steps(size_t worker) const {
    return static_cast<size_t>(workers_[worker]->steps_size());
  }
  bool per_step() const { return per_step_; }

 private:
  const v1::RunProfile* run_ = nullptr;
  std::string label_;
  std::vector<const v1::WorkerProfile*> workers_;
  std::vector<size_t> slot_offset_;
  size_t slot_count_ = 0;
  bool per_step_ = true;
};

// M metrics of one row (or node) on one side: per-worker totals and per-slot
// values.
template <size_t M>
struct RowSeries {
  using Values = std::array<double, M>;
  std::vector<Values> totals;  // per worker
  std::vector<Values> slots;   // per slot
  bool present = false;        // the row exists on this side

  explicit RowSeries(const Side& side)
      : totals(side.workers().size()), slots(side.slot_count()) {}

  // Adds a worker's total for the row; with no kept steps it is also the
  // worker's one sample.
  void AddTotal(const Side& side, size_t worker, const Values& values) {
    present = true;
    for (size_t m = 0; m < M; ++m) totals[worker][m] += values[m];
    if (side.steps(worker) == 0) {
      for (size_t m = 0; m < M; ++m)
        slots[side.first_slot(worker)][m] += values[m];
    }
  }
  void AddStep(const Side& side, size_t worker, int32_t step_index,
               const Values& values) {
    if (step_index < 0 || static_cast<size_t>(step_index) >= side.steps(worker))
      return;
    for (size_t m = 0; m < M; ++m)
      slots[side.first_slot(worker) + step_index][m] += values[m];
  }

  // The run value of metric m: mean over workers of the per-step mean (or the
  // total).
  double Value(const Side& side, size_t m) const {
    const size_t workers = totals.size();
    if (workers == 0) return 0;
    double sum = 0;
    for (size_t w = 0; w < workers; ++w) {
      if (!side.per_step()) {
        sum += totals[w][m];
        continue;
      }
      const size_t n = std::max<size_t>(side.steps(w), 1);
      double step_sum = 0;
      for (size_t s = 0; s < n; ++s)
        step_sum += slots[side.first_slot(w) + s][m];
      sum += step_sum / static_cast<double>(n);
    }
    return sum / static_cast<double>(workers);
  }
  std::vector<double> Samples(size_t m) const {
    std::vector<double> out(slots.size());
    for (size_t s = 0; s < slots.size(); ++s) out[s] = slots[s][m];
    return out;
  }
};

// Mean over the side's workers of f(worker).
double MeanOverWorkers(
    const Side& side, const std::function<double(const v1::WorkerProfile&)>& f);

// (b - a) / a in percent; 0 when a is 0.
double DeltaPct(double a, double b);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SIDE_H_
