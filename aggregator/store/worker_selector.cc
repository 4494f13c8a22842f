#include "aggregator/store/worker_selector.h"

#include "base/str_cat.h"

namespace profdiff::aggregator {

std::string WorkerKey(int32_t rank, const std::string& name) {
  return base::StrCat(rank, ".", name);
}

bool Selected(const v1::WorkerSelector& selector, const v1::WorkerInfo& info) {
  if (selector.has_rank() && selector.rank() != info.rank()) return false;
  return selector.worker_name().empty() ||
         selector.worker_name() == info.worker_name();
}

std::string DescribeSelector(const v1::WorkerSelector& selector) {
  std::string text;
  if (selector.has_rank()) text = base::StrCat("rank ", selector.rank());
  if (!selector.worker_name().empty()) {
    base::StrAppend(&text, text.empty() ? "" : " ", "name ",
                    selector.worker_name());
  }
  return text.empty() ? "all workers" : text;
}

}  // namespace profdiff::aggregator
