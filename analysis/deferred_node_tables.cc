#include "analysis/deferred_node_tables.h"

#include <utility>

#include "analysis/worker_profile.h"

namespace profdiff::analysis {

DeferredNodeTables::DeferredNodeTables(
    std::shared_ptr<const trace::Trace> trace, EventLinks links,
    OperatorTimes times, std::vector<int32_t> step_of_event, ModuleTree tree)
    : trace_(std::move(trace)),
      links_(std::move(links)),
      times_(std::move(times)),
      step_of_event_(std::move(step_of_event)),
      tree_(std::move(tree)),
      rows_(*trace_, links_, times_, step_of_event_) {}

bool DeferredNodeTables::Fill(const std::vector<const std::string*>& names,
                              v1::ModuleNode& out) const {
  if (names.empty() || tree_.nodes.empty()) return false;
  uint32_t node = 0;
  for (const std::string* name : names) {
    // The later of two children of one name, as the digest's tree merges them.
    uint32_t last = kNoEvent;
    for (const uint32_t child : tree_.nodes[node].children) {
      if (tree_.nodes[child].name == *name) last = child;
    }
    if (last == kNoEvent) return false;
    node = last;
  }
  absl::MutexLock lock(&mutex_);
  FillModuleNodeTables(*trace_, tree_.nodes[node], rows_, out);
  return true;
}

}  // namespace profdiff::analysis
