#include "analysis/event_links.h"

#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>

#include <absl/container/flat_hash_map.h>

#include "analysis/sort_unless_sorted.h"

namespace profdiff::analysis {
namespace {

using trace::EventKind;

// One entry of a thread's sweep; at equal start the longer (outer) first,
// containers before leaves, then event order.
struct SweepItem {
  int64_t start_ns;
  int64_t end_ns;
  uint32_t is_leaf;
  uint32_t event;
  friend bool operator<(const SweepItem& a, const SweepItem& b) {
    return std::tie(a.start_ns, b.end_ns, a.is_leaf, a.event) <
           std::tie(b.start_ns, a.end_ns, b.is_leaf, b.event);
  }
};

bool StartsBefore(const trace::EventTable& t, uint32_t a, uint32_t b) {
  if (t.start_ns[a] != t.start_ns[b]) return t.start_ns[a] < t.start_ns[b];
  if (t.duration_ns[a] != t.duration_ns[b])
    return t.duration_ns[a] > t.duration_ns[b];
  return a < b;
}

void SortByStart(const trace::EventTable& t, std::vector<uint32_t>& events) {
  SortUnlessSorted(events.begin(), events.end(), [&t](uint32_t a, uint32_t b) {
    return StartsBefore(t, a, b);
  });
}

// Whether every start and duration of `events` is a whole microsecond.
bool WholeMicroseconds(const trace::EventTable& t,
                       const std::vector<uint32_t>& events) {
  for (uint32_t e : events) {
    if (t.start_ns[e] % 1000 != 0 || t.duration_ns[e] % 1000 != 0) return false;
  }
  return true;
}

// Maps each id of `events` to the first of them (in the order given) that
// carries it.
void IndexById(const std::vector<uint32_t>& events,
               const std::vector<int64_t>& id,
               absl::flat_hash_map<int64_t, uint32_t>& map) {
  map.reserve(events.size());
  for (uint32_t i : events) {
    if (id[i] != trace::kNoId) map.try_emplace(id[i], i);
  }
}

}  // namespace

void NestOnThreads(const trace::Trace& trace,
                   const std::vector<uint32_t>& containers,
                   const std::vector<uint32_t>& leaves,
                   std::vector<uint32_t>& container_parent,
                   std::vector<uint32_t>& leaf_container) {
  const trace::EventTable& t = trace.events;
  // Bucket by thread first (a stable counting sort), so each thread's items
  // keep file order, which is nearly always time order already.
  absl::flat_hash_map<std::pair<int64_t, int64_t>, uint32_t> thread_index;
  std::vector<uint32_t> thread_of_item;
  thread_of_item.reserve(containers.size() + leaves.size());
  std::vector<uint32_t> bucket_begin(1, 0);
  auto count = [&](uint32_t e) {
    auto [it, inserted] = thread_index.try_emplace(
        std::pair(t.pid[e], t.tid[e]),
        static_cast<uint32_t>(bucket_begin.size() - 1));
    if (inserted) bucket_begin.push_back(0);
    thread_of_item.push_back(it->second);
    ++bucket_begin[it->second + 1];
  };
  for (uint32_t e : containers) count(e);
  for (uint32_t e : leaves) count(e);
  for (size_t b = 1; b < bucket_begin.size(); ++b)
    bucket_begin[b] += bucket_begin[b - 1];
  std::vector<SweepItem> items(thread_of_item.size());
  std::vector<uint32_t> next(bucket_begin.begin(), bucket_begin.end() - 1);
  size_t k = 0;
  for (uint32_t e : containers)
    items[next[thread_of_item[k++]]++] = {t.start_ns[e], t.end_ns(e), 0, e};
  const std::vector<uint32_t> leaves_begin =
      next;  // per thread: containers, then leaves
  for (uint32_t e : leaves)
    items[next[thread_of_item[k++]]++] = {t.start_ns[e], t.end_ns(e), 1, e};

  // The legacy profiler and older Kineto print start and duration as whole
  // microseconds, each rounded on its own, so a child can end up to 1 us after
  // its parent: in such a trace it still nests when it starts before the parent
  // ends (else its time would come off the grandparent's self time, which then
  // goes negative).
  const int64_t rounding_slack_ns = WholeMicroseconds(t, containers) ? 1000 : 0;
  auto inside = [rounding_slack_ns](const SweepItem& parent,
                                    const SweepItem& item) {
    return item.end_ns <= parent.end_ns ||
           (item.start_ns < parent.end_ns &&
            item.end_ns <= parent.end_ns + rounding_slack_ns);
  };
  std::vector<const SweepItem*> stack;
  for (size_t b = 0; b + 1 < bucket_begin.size(); ++b) {
    const auto begin = items.begin() + bucket_begin[b];
    const auto end = items.begin() + bucket_begin[b + 1];
    const auto middle = items.begin() + leaves_begin[b];
    SortUnlessSorted(begin, middle, std::less<SweepItem>());
    SortUnlessSorted(middle, end, std::less<SweepItem>());
    std::inplace_merge(begin, middle, end);
    stack.clear();
    for (auto it = begin; it != end; ++it) {
      const SweepItem& item = *it;
      // An item is inside the stack top when it ends no later, or within the
      // rounding slack (it starts no earlier by the sort).
      while (!stack.empty() && !inside(*stack.back(), item)) stack.pop_back();
      const uint32_t enclosing = stack.empty() ? kNoEvent : stack.back()->event;
      if (item.is_leaf) {
        leaf_container[item.event] = enclosing;
      } else {
        container_parent[item.event] = enclosing;
        // A child nested by the rounding slack ends where its parent does, so
        // its late end cannot pull the parent's next sibling inside it.
        if (!stack.empty() && item.end_ns > stack.back()->end_ns)
          it->end_ns = stack.back()->end_ns;
        stack.push_back(&item);
      }
    }
  }
}

namespace {

// docs/semantics.md §5, torch's EventList._remove_dup_nodes (which the plugin
// follows): an operator whose only child operator has its name is one call with
// it. The child leaves the operator list; its children and runtime calls become
// its parent's, repeatedly (a chain is one call).
void MergeSameNameOnlyChildren(const trace::EventTable& t, EventLinks& links) {
  absl::flat_hash_map<uint32_t, uint32_t>
      children;  // operator -> its child operators
  for (uint32_t op : links.operators) {
    if (links.op_parent[op] != kNoEvent) ++children[links.op_parent[op]];
  }
  absl::flat_hash_map<uint32_t, uint32_t>
      merged_into;  // merged child -> the operator it joined
  for (uint32_t op :
       links.operators) {  // by start: a parent is decided before its children
    const uint32_t parent = links.op_parent[op];
    if (parent == kNoEvent || t.name[op] != t.name[parent] ||
        children[parent] != 1)
      continue;
    // Only a real call inside a real call: whole-microsecond traces round two
    // sibling calls of zero length, or one starting where the other ends, into
    // "nested" ones.
    if (t.duration_ns[parent] == 0 || t.start_ns[op] >= t.end_ns(parent))
      continue;
    auto up = merged_into.find(parent);
    merged_into.try_emplace(op, up == merged_into.end() ? parent : up->second);
  }
  if (merged_into.empty()) return;
  auto kept = [&merged_into](uint32_t op) {
    auto it = merged_into.find(op);
    return it == merged_into.end() ? op : it->second;
  };
  for (uint32_t op : links.operators) {
    if (links.op_parent[op] != kNoEvent)
      links.op_parent[op] = kept(links.op_parent[op]);
  }
  for (uint32_t r : links.runtimes) {
    if (links.runtime_op[r] != kNoEvent)
      links.runtime_op[r] = kept(links.runtime_op[r]);
  }
  std::erase_if(links.operators, [&merged_into](uint32_t op) {
    return merged_into.contains(op);
  });
  links.operators_merged = static_cast<int32_t>(merged_into.size());
}

}  // namespace

EventLinks LinkEvents(const trace::Trace& trace) {
  const trace::EventTable& t = trace.events;
  const size_t n = t.size();
  EventLinks links;
  links.op_parent.assign(n, kNoEvent);
  links.runtime_op.assign(n, kNoEvent);
  links.device_runtime.assign(n, kNoEvent);

  std::vector<uint32_t>
      annotations;  // user annotations and steps that carry an External id
  for (uint32_t i = 0; i < n; ++i) {
    if (t.phase[i] != trace::EventPhase::kComplete) continue;
    const EventKind kind = t.kind[i];
    if (kind == EventKind::kCpuOp) {
      links.operators.push_back(i);
    } else if (kind == EventKind::kUserAnnotation ||
               kind == EventKind::kProfilerStep) {
      if (t.external_id[i] != trace::kNoId) annotations.push_back(i);
    } else if (kind == EventKind::kRuntime || kind == EventKind::kDriver) {
      links.runtimes.push_back(i);
    } else if (trace::IsDeviceActivity(kind)) {
      links.device_activities.push_back(i);
    }
  }
  // Id maps, built only when something will look them up (a CPU-only trace has
  // hundreds of thousands of operators and no runtime call), from the lists
  // still in file order: the first event with an id keeps it.
  absl::flat_hash_map<int64_t, uint32_t> op_by_external_id;
  absl::flat_hash_map<int64_t, uint32_t> annotation_by_external_id;
  absl::flat_hash_map<int64_t, uint32_t> runtime_by_correlation;
  if (!links.runtimes.empty()) {
    IndexById(links.operators, t.external_id, op_by_external_id);
    IndexById(annotations, t.external_id, annotation_by_external_id);
  }
  if (!links.device_activities.empty())
    IndexById(links.runtimes, t.correlation, runtime_by_correlation);
  SortByStart(t, links.operators);
  SortByStart(t, links.runtimes);
  SortByStart(t, links.device_activities);

  std::vector<uint32_t> enclosing_op(n, kNoEvent);
  NestOnThreads(trace, links.operators, links.runtimes, links.op_parent,
                enclosing_op);

  for (uint32_t r : links.runtimes) {
    const int64_t external_id = t.external_id[r];
    if (external_id != trace::kNoId) {
      if (auto it = op_by_external_id.find(external_id);
          it != op_by_external_id.end()) {
        links.runtime_op[r] = it->second;
        continue;
      }
      // An id that names no event at all is the torch ~1.12 case (id ==
      // correlation).
      if (!annotation_by_external_id.contains(external_id))
        ++links.runtime_linked_by_containment;
    }
    links.runtime_op[r] = enclosing_op[r];
  }
  for (uint32_t d : links.device_activities) {
    if (t.correlation[d] == trace::kNoId) continue;
    if (auto it = runtime_by_correlation.find(t.correlation[d]);
        it != runtime_by_correlation.end()) {
      links.device_runtime[d] = it->second;
    }
  }
  MergeSameNameOnlyChildren(t, links);
  return links;
}

}  // namespace profdiff::analysis
