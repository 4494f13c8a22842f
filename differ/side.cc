#include "differ/side.h"

#include <algorithm>

#include "base/str_cat.h"

namespace profdiff::differ {

absl::StatusOr<Side> Side::Select(const v1::RunProfile& run,
                                  const std::vector<int32_t>& ranks,
                                  v1::Normalization normalize,
                                  std::string label) {
  Side side;
  side.run_ = &run;
  side.label_ = std::move(label);
  side.per_step_ = normalize != v1::NORMALIZATION_TOTAL;
  for (const v1::WorkerProfile& worker : run.workers()) {
    if (ranks.empty() || std::find(ranks.begin(), ranks.end(),
                                   worker.worker().rank()) != ranks.end()) {
      side.workers_.push_back(&worker);
    }
  }
  if (side.workers_.empty()) {
    std::string have;
    for (const v1::WorkerProfile& worker : run.workers()) {
      base::StrAppend(&have, have.empty() ? "" : ", ", worker.worker().rank());
    }
    return absl::InvalidArgumentError(
        base::StrCat(side.label_, " run \"", run.run(),
                     "\" has no worker with the requested ranks (it has ",
                     have.empty() ? "no workers" : "ranks " + have, ")"));
  }
  std::stable_sort(side.workers_.begin(), side.workers_.end(),
                   [](const v1::WorkerProfile* a, const v1::WorkerProfile* b) {
                     return a->worker().rank() < b->worker().rank();
                   });
  for (const v1::WorkerProfile* worker : side.workers_) {
    side.slot_offset_.push_back(side.slot_count_);
    side.slot_count_ += std::max(worker->steps_size(), 1);
  }
  return side;
}

double MeanOverWorkers(
    const Side& side,
    const std::function<double(const v1::WorkerProfile&)>& f) {
  double sum = 0;
  for (const v1::WorkerProfile* w : side.workers()) sum += f(*w);
  return side.workers().empty()
             ? 0
             : sum / static_cast<double>(side.workers().size());
}

double DeltaPct(double a, double b) { return a == 0 ? 0 : (b - a) / a * 100.0; }

}  // namespace profdiff::differ
