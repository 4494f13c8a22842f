#include "analysis/event_links.h"

#include <algorithm>
#include <tuple>

#include <absl/container/flat_hash_map.h>

namespace profdiff::analysis {
namespace {

using trace::EventKind;

// One entry of the per-thread sweep; containers sort before leaves on ties.
struct SweepItem {
  int64_t pid;
  int64_t tid;
  int64_t start_ns;
  int64_t end_ns;
  uint8_t is_leaf;
  uint32_t event;
};

void SortByStart(const trace::EventTable& t, std::vector<uint32_t>& events) {
  std::sort(events.begin(), events.end(), [&t](uint32_t a, uint32_t b) {
    if (t.start_ns[a] != t.start_ns[b]) return t.start_ns[a] < t.start_ns[b];
    if (t.duration_ns[a] != t.duration_ns[b]) return t.duration_ns[a] > t.duration_ns[b];
    return a < b;
  });
}

}  // namespace

void NestOnThreads(const trace::Trace& trace, const std::vector<uint32_t>& containers,
                   const std::vector<uint32_t>& leaves, std::vector<uint32_t>& container_parent,
                   std::vector<uint32_t>& leaf_container) {
  const trace::EventTable& t = trace.events;
  std::vector<SweepItem> items;
  items.reserve(containers.size() + leaves.size());
  for (uint32_t e : containers) items.push_back({t.pid[e], t.tid[e], t.start_ns[e], t.end_ns(e), 0, e});
  for (uint32_t e : leaves) items.push_back({t.pid[e], t.tid[e], t.start_ns[e], t.end_ns(e), 1, e});
  // Per thread by start; at equal start the longer (outer) first, containers before leaves.
  std::sort(items.begin(), items.end(), [](const SweepItem& a, const SweepItem& b) {
    return std::tie(a.pid, a.tid, a.start_ns, b.end_ns, a.is_leaf, a.event) <
           std::tie(b.pid, b.tid, b.start_ns, a.end_ns, b.is_leaf, b.event);
  });
  std::vector<const SweepItem*> stack;
  for (size_t k = 0; k < items.size(); ++k) {
    const SweepItem& item = items[k];
    if (k > 0 && (items[k - 1].pid != item.pid || items[k - 1].tid != item.tid)) stack.clear();
    // An item is inside the stack top when it ends no later (it starts no earlier by the sort).
    while (!stack.empty() && stack.back()->end_ns < item.end_ns) stack.pop_back();
    const uint32_t enclosing = stack.empty() ? kNoEvent : stack.back()->event;
    if (item.is_leaf) {
      leaf_container[item.event] = enclosing;
    } else {
      container_parent[item.event] = enclosing;
      stack.push_back(&item);
    }
  }
}

EventLinks LinkEvents(const trace::Trace& trace) {
  const trace::EventTable& t = trace.events;
  const size_t n = t.size();
  EventLinks links;
  links.op_parent.assign(n, kNoEvent);
  links.runtime_op.assign(n, kNoEvent);
  links.device_runtime.assign(n, kNoEvent);

  absl::flat_hash_map<int64_t, uint32_t> op_by_external_id;
  absl::flat_hash_map<int64_t, uint32_t> annotation_by_external_id;
  absl::flat_hash_map<int64_t, uint32_t> runtime_by_correlation;
  for (uint32_t i = 0; i < n; ++i) {
    if (t.phase[i] != trace::EventPhase::kComplete) continue;
    const EventKind kind = t.kind[i];
    if (kind == EventKind::kCpuOp) {
      links.operators.push_back(i);
      if (t.external_id[i] != trace::kNoId) op_by_external_id.try_emplace(t.external_id[i], i);
    } else if (kind == EventKind::kUserAnnotation || kind == EventKind::kProfilerStep) {
      if (t.external_id[i] != trace::kNoId) {
        annotation_by_external_id.try_emplace(t.external_id[i], i);
      }
    } else if (kind == EventKind::kRuntime || kind == EventKind::kDriver) {
      links.runtimes.push_back(i);
      if (t.correlation[i] != trace::kNoId) runtime_by_correlation.try_emplace(t.correlation[i], i);
    } else if (trace::IsDeviceActivity(kind)) {
      links.device_activities.push_back(i);
    }
  }
  SortByStart(t, links.operators);
  SortByStart(t, links.runtimes);
  SortByStart(t, links.device_activities);

  std::vector<uint32_t> enclosing_op(n, kNoEvent);
  NestOnThreads(trace, links.operators, links.runtimes, links.op_parent, enclosing_op);

  for (uint32_t r : links.runtimes) {
    const int64_t external_id = t.external_id[r];
    if (external_id != trace::kNoId) {
      if (auto it = op_by_external_id.find(external_id); it != op_by_external_id.end()) {
        links.runtime_op[r] = it->second;
        continue;
      }
      // An id that names no event at all is the torch ~1.12 case (id == correlation).
      if (!annotation_by_external_id.contains(external_id)) ++links.runtime_linked_by_containment;
    }
    links.runtime_op[r] = enclosing_op[r];
  }
  for (uint32_t d : links.device_activities) {
    if (t.correlation[d] == trace::kNoId) continue;
    if (auto it = runtime_by_correlation.find(t.correlation[d]); it != runtime_by_correlation.end()) {
      links.device_runtime[d] = it->second;
    }
  }
  return links;
}

}  // namespace profdiff::analysis
