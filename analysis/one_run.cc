#include "analysis/one_run.h"

#include <algorithm>
#include <map>

#include "base/str_cat.h"

namespace profdiff::analysis {

std::string DescribeWorkers(const std::vector<const v1::WorkerInfo*>& workers) {
  std::string out;
  for (const v1::WorkerInfo* w : workers) {
    base::StrAppend(&out, out.empty() ? "" : ", ", w->worker_name(), " (rank ",
                    w->rank(), " of ", w->world_size(), ")");
  }
  return out;
}

std::string RanksGivenTwice(const std::vector<const v1::WorkerInfo*>& workers) {
  std::map<int32_t, std::vector<const v1::WorkerInfo*>> by_rank;
  for (const v1::WorkerInfo* w : workers) by_rank[w->rank()].push_back(w);
  std::string problem;
  for (auto& [rank, held_by] : by_rank) {
    if (held_by.size() < 2) continue;
    std::stable_sort(held_by.begin(), held_by.end(),
                     [](const v1::WorkerInfo* a, const v1::WorkerInfo* b) {
                       return a->worker_name() < b->worker_name();
                     });
    base::StrAppend(&problem, problem.empty() ? "" : "; ", "rank ", rank, " ",
                    held_by.size(), " times: ", DescribeWorkers(held_by));
  }
  return problem;
}

}  // namespace profdiff::analysis
