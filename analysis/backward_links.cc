#include "analysis/backward_links.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

namespace profdiff::analysis {
namespace {

using trace::EventKind;
using trace::EventPhase;

constexpr std::string_view kAccumulateGrad = "torch::autograd::AccumulateGrad";
constexpr std::string_view kFlowCategory = "fwdbwd";

using ThreadKey = std::pair<int64_t, int64_t>;  // (pid, tid)

// Operators of each thread by start (then longer first), to bind a flow
// endpoint to its op.
class OperatorsByThread {
 public:
  OperatorsByThread(const trace::Trace& trace, const EventLinks& links)
      : t_(trace.events) {
    for (uint32_t op : links.operators)
      by_thread_[ThreadKey(t_.pid[op], t_.tid[op])].push_back(op);
  }

  // The innermost operator on the thread starting exactly at `ts_ns` (as HTA
  // binds flow ends: both ends are written at their op's start), or kNoEvent.
  uint32_t StartingAt(int64_t pid, int64_t tid, int64_t ts_ns) const {
    auto it = by_thread_.find(ThreadKey(pid, tid));
    if (it == by_thread_.end()) return kNoEvent;
    const std::vector<uint32_t>& ops = it->second;
    auto after = std::upper_bound(
        ops.begin(), ops.end(), ts_ns,
        [this](int64_t ts, uint32_t op) { return ts < t_.start_ns[op]; });
    if (after == ops.begin() || t_.start_ns[*(after - 1)] != ts_ns)
      return kNoEvent;
    return *(after - 1);  // of equal starts the shortest, the innermost
  }

 private:
  const trace::EventTable& t_;
  absl::flat_hash_map<ThreadKey, std::vector<uint32_t>> by_thread_;
};

bool IsRootName(std::string_view name) {
  return name.starts_with(kBackwardRootPrefix);
}

// Per operator: the nearest backward root at or around it (kNoEvent when none).
// One pass in start order: a parent comes before its children.
std::vector<uint32_t> RootsAround(const trace::Trace& trace,
                                  const EventLinks& links) {
  std::vector<uint32_t> root_of(trace.events.size(), kNoEvent);
  for (uint32_t op : links.operators) {
    if (IsRootName(trace.strings.Get(trace.events.name[op]))) {
      root_of[op] = op;
    } else if (const uint32_t parent = links.op_parent[op];
               parent != kNoEvent) {
      root_of[op] = root_of[parent];
    }
  }
  return root_of;
}

// Whether a root can be linked: it has no forward op yet and is not an
// AccumulateGrad root.
bool Linkable(const BackwardLinks& out, uint32_t root) {
  return root != kNoEvent && !out.accumulate_grad[root] &&
         out.forward_op[root] == kNoEvent;
}

void LinkByFlows(const trace::Trace& trace, const EventLinks& links,
                 const std::vector<uint32_t>& root_of, BackwardLinks& out) {
  const trace::EventTable& t = trace.events;
  absl::flat_hash_map<uint32_t, bool> is_fwdbwd;  // by category id
  auto fwdbwd = [&](uint32_t i) {
    auto [it, inserted] = is_fwdbwd.try_emplace(t.category[i].value, false);
    if (inserted)
      it->second = trace.strings.Get(t.category[i]) == kFlowCategory;
    return it->second;
  };
  // Each id's first start; its ends are walked in event order, so the result
  // never depends on hash order. A repeated start, or an end without a start,
  // is counted and not used.
  absl::flat_hash_map<int64_t, uint32_t> start_of;
  std::vector<uint32_t> ends;
  for (uint32_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != EventKind::kFlow || !fwdbwd(i)) continue;
    out.has_flows = true;
    if (t.phase[i] == EventPhase::kFlowStart) {
      if (!start_of.try_emplace(t.flow_id[i], i).second) ++out.flows_unused;
    } else if (t.phase[i] == EventPhase::kFlowEnd) {
      ends.push_back(i);
    }
  }
  if (ends.empty()) {
    out.flows_unused += static_cast<int32_t>(start_of.size());
    return;
  }
  const OperatorsByThread ops(trace, links);
  absl::flat_hash_set<int64_t> used;
  for (uint32_t end : ends) {
    auto start = start_of.find(t.flow_id[end]);
    if (start == start_of.end() || !used.insert(t.flow_id[end]).second) {
      ++out.flows_unused;
      continue;
    }
    const uint32_t s = start->second;
    const uint32_t forward = ops.StartingAt(t.pid[s], t.tid[s], t.start_ns[s]);
    const uint32_t backward =
        ops.StartingAt(t.pid[end], t.tid[end], t.start_ns[end]);
    const uint32_t root = backward == kNoEvent ? kNoEvent : root_of[backward];
    if (forward == kNoEvent || !Linkable(out, root)) {
      ++out.flows_unused;
      continue;
    }
    out.forward_op[root] = forward;
    ++out.linked_by_flow;
  }
  out.flows_unused += static_cast<int32_t>(start_of.size() - used.size());
}

void LinkBySequenceNumbers(const trace::Trace& trace, const EventLinks& links,
                           const std::vector<uint32_t>& root_of,
                           BackwardLinks& out) {
  const trace::EventTable& t = trace.events;
  // Forward ops as (pid, sequence number, tid, start, op), sorted: one
  // allocation, not one per sequence number.
  using Forward = std::tuple<int64_t, int64_t, int64_t, int64_t, uint32_t>;
  std::vector<Forward> forward;
  absl::flat_hash_set<ThreadKey> forward_threads;
  struct Wanted {
    uint32_t root;
    int64_t thread_number;  // "Fwd thread id"
    int64_t sequence;
  };
  std::vector<Wanted> wanted;
  absl::flat_hash_set<uint32_t> asked;  // roots already in `wanted`
  for (uint32_t op : links.operators) {
    const int64_t sequence = t.sequence_number[op];
    if (sequence < 0) continue;
    if (t.forward_thread_id[op] == trace::kNoId) {
      forward.emplace_back(t.pid[op], sequence, t.tid[op], t.start_ns[op], op);
      forward_threads.insert(ThreadKey(t.pid[op], t.tid[op]));
      continue;
    }
    out.has_sequence_numbers = true;
    const uint32_t root = root_of[op];
    if (Linkable(out, root) && asked.insert(root).second)
      wanted.push_back({root, t.forward_thread_id[op], sequence});
  }
  if (wanted.empty() || forward.empty()) return;
  std::sort(forward.begin(), forward.end());
  // Forward ops of (pid, sequence number), on every thread.
  auto candidates = [&forward](int64_t pid, int64_t sequence) {
    auto lo = std::lower_bound(forward.begin(), forward.end(),
                               Forward(pid, sequence, INT64_MIN, INT64_MIN, 0));
    auto hi = std::lower_bound(
        lo, forward.end(), Forward(pid, sequence + 1, INT64_MIN, INT64_MIN, 0));
    return std::pair(lo, hi);
  };

  // Which tid each forward thread number means, per process (design note 3):
  // itself when it is a thread with forward ops, else the thread matching most
  // of its roots' sequence numbers.
  using NumberKey = std::pair<int64_t, int64_t>;  // (pid, thread number)
  absl::flat_hash_map<std::tuple<int64_t, int64_t, int64_t>, int32_t>
      votes;  // (pid, number, tid)
  for (const Wanted& w : wanted) {
    const int64_t pid = t.pid[w.root];
    if (forward_threads.contains(ThreadKey(pid, w.thread_number))) continue;
    auto [lo, hi] = candidates(pid, w.sequence);
    int64_t last_tid = INT64_MIN;
    for (auto it = lo; it != hi; ++it) {
      if (std::get<2>(*it) != last_tid)
        ++votes[{pid, w.thread_number, std::get<2>(*it)}];
      last_tid = std::get<2>(*it);
    }
  }
  absl::flat_hash_map<NumberKey, std::pair<int64_t, int32_t>>
      tid_of_number;  // -> (tid, votes)
  for (const auto& [key, count] : votes) {
    const auto [pid, number, tid] = key;
    auto [it, inserted] =
        tid_of_number.try_emplace(NumberKey(pid, number), tid, count);
    if (!inserted && (count > it->second.second ||
                      (count == it->second.second && tid < it->second.first))) {
      it->second = {tid, count};
    }
  }
  for (const Wanted& w : wanted) {
    const int64_t pid = t.pid[w.root];
    int64_t tid = w.thread_number;
    if (!forward_threads.contains(ThreadKey(pid, tid))) {
      auto it = tid_of_number.find(NumberKey(pid, w.thread_number));
      if (it == tid_of_number.end()) continue;
      tid = it->second.first;
    }
    // The latest-starting forward op of that key that started before the root.
    auto [lo, hi] = candidates(pid, w.sequence);
    uint32_t found = kNoEvent;
    for (auto it = lo; it != hi; ++it) {
      if (std::get<2>(*it) == tid && std::get<3>(*it) <= t.start_ns[w.root])
        found = std::get<4>(*it);
    }
    if (found == kNoEvent) continue;
    out.forward_op[w.root] = found;
    ++out.linked_by_sequence;
  }
}

}  // namespace

BackwardLinks LinkBackward(const trace::Trace& trace, const EventLinks& links) {
  const trace::EventTable& t = trace.events;
  BackwardLinks out;
  out.forward_op.assign(t.size(), kNoEvent);
  out.accumulate_grad.assign(t.size(), false);
  for (uint32_t op : links.operators) {
    const std::string_view name = trace.strings.Get(t.name[op]);
    if (!IsRootName(name)) continue;
    out.roots.push_back(op);
    if (name.substr(kBackwardRootPrefix.size()) == kAccumulateGrad) {
      out.accumulate_grad[op] = true;
      ++out.accumulate_grad_roots;
    }
  }
  if (out.roots.empty()) return out;
  const std::vector<uint32_t> root_of = RootsAround(trace, links);
  LinkByFlows(trace, links, root_of, out);
  LinkBySequenceNumbers(trace, links, root_of, out);
  for (uint32_t root : out.roots) {
    if (!out.accumulate_grad[root] && out.forward_op[root] == kNoEvent)
      ++out.unlinked;
  }
  return out;
}

}  // namespace profdiff::analysis
