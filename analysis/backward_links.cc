#include "analysis/backward_links.h"

#include <algorithm>
#include <utility>

#include <absl/container/flat_hash_map.h>

namespace profdiff::analysis {
namespace {

using trace::EventKind;
using trace::EventPhase;

constexpr std::string_view kAccumulateGrad = "torch::autograd::AccumulateGrad";
constexpr std::string_view kFlowCategory = "fwdbwd";

using ThreadKey = std::pair<int64_t, int64_t>;  // (pid, tid)

// Operators of each thread by start (then longer first), to bind a flow endpoint to its op.
class OperatorsByThread {
 public:
  OperatorsByThread(const trace::Trace& trace, const EventLinks& links) : trace_(trace), links_(links) {
    const trace::EventTable& t = trace.events;
    for (uint32_t op : links.operators) by_thread_[ThreadKey(t.pid[op], t.tid[op])].push_back(op);
  }

  // The innermost operator on the thread that starts at `ts_ns`, else the innermost one holding it.
  uint32_t At(int64_t pid, int64_t tid, int64_t ts_ns) const {
    const trace::EventTable& t = trace_.events;
    auto it = by_thread_.find(ThreadKey(pid, tid));
    if (it == by_thread_.end()) return kNoEvent;
    const std::vector<uint32_t>& ops = it->second;
    auto after = std::upper_bound(ops.begin(), ops.end(), ts_ns,
                                  [&t](int64_t ts, uint32_t op) { return ts < t.start_ns[op]; });
    if (after == ops.begin()) return kNoEvent;
    uint32_t op = *(after - 1);  // of equal starts the shortest, the innermost
    for (; op != kNoEvent; op = links_.op_parent[op]) {
      if (t.start_ns[op] <= ts_ns && ts_ns <= t.end_ns(op)) return op;
    }
    return kNoEvent;
  }

 private:
  const trace::Trace& trace_;
  const EventLinks& links_;
  absl::flat_hash_map<ThreadKey, std::vector<uint32_t>> by_thread_;
};

bool IsRootName(std::string_view name) { return name.starts_with(kBackwardRootPrefix); }

// The backward root at or around operator `op` (the nearest), or kNoEvent.
uint32_t RootOf(const trace::Trace& trace, const EventLinks& links, uint32_t op) {
  for (; op != kNoEvent; op = links.op_parent[op]) {
    if (IsRootName(trace.strings.Get(trace.events.name[op]))) return op;
  }
  return kNoEvent;
}

void LinkByFlows(const trace::Trace& trace, const EventLinks& links, BackwardLinks& out) {
  const trace::EventTable& t = trace.events;
  struct Ends {
    uint32_t start = kNoEvent;
    uint32_t end = kNoEvent;
  };
  absl::flat_hash_map<int64_t, Ends> by_id;
  for (uint32_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != EventKind::kFlow || trace.strings.Get(t.category[i]) != kFlowCategory) continue;
    out.has_flows = true;
    if (t.phase[i] == EventPhase::kFlowStart) by_id[t.flow_id[i]].start = i;
    if (t.phase[i] == EventPhase::kFlowEnd) by_id[t.flow_id[i]].end = i;
  }
  if (by_id.empty()) return;
  const OperatorsByThread ops(trace, links);
  for (const auto& [id, ends] : by_id) {
    if (ends.start == kNoEvent || ends.end == kNoEvent) continue;
    const uint32_t forward = ops.At(t.pid[ends.start], t.tid[ends.start], t.start_ns[ends.start]);
    const uint32_t backward = ops.At(t.pid[ends.end], t.tid[ends.end], t.start_ns[ends.end]);
    if (forward == kNoEvent || backward == kNoEvent) continue;
    const uint32_t root = RootOf(trace, links, backward);
    if (root == kNoEvent || out.forward_op[root] != kNoEvent) continue;
    out.forward_op[root] = forward;
    ++out.linked_by_flow;
  }
}

void LinkBySequenceNumbers(const trace::Trace& trace, const EventLinks& links, BackwardLinks& out) {
  const trace::EventTable& t = trace.events;
  // Forward ops by (tid, sequence number); ops are by start, so the latest start stays.
  absl::flat_hash_map<std::pair<int64_t, int64_t>, uint32_t> forward;
  absl::flat_hash_map<int64_t, std::vector<int64_t>> threads_of_sequence;
  // Roots still to link, with the (forward thread number, sequence number) they or their
  // autograd function carry.
  absl::flat_hash_map<uint32_t, std::pair<int64_t, int64_t>> wanted;
  for (uint32_t op : links.operators) {
    const int64_t sequence = t.sequence_number[op];
    if (sequence < 0) continue;
    if (t.forward_thread_id[op] == trace::kNoId) {
      auto [it, inserted] = forward.insert_or_assign(std::pair(t.tid[op], sequence), op);
      if (inserted) threads_of_sequence[sequence].push_back(t.tid[op]);
      continue;
    }
    out.has_sequence_numbers = true;
    const uint32_t root = RootOf(trace, links, op);
    if (root != kNoEvent && out.forward_op[root] == kNoEvent) {
      wanted.try_emplace(root, t.forward_thread_id[op], sequence);
    }
  }
  if (wanted.empty()) return;

  // Which tid each forward thread number means (design note 3).
  absl::flat_hash_map<int64_t, bool> has_forward_ops;
  for (const auto& [key, op] : forward) has_forward_ops[key.first] = true;
  absl::flat_hash_map<std::pair<int64_t, int64_t>, int32_t> votes;  // (number, tid) -> roots
  for (const auto& [root, key] : wanted) {
    auto it = threads_of_sequence.find(key.second);
    if (it == threads_of_sequence.end()) continue;
    for (int64_t tid : it->second) ++votes[std::pair(key.first, tid)];
  }
  absl::flat_hash_map<int64_t, std::pair<int64_t, int32_t>> tid_of_number;  // -> (tid, votes)
  for (const auto& [key, count] : votes) {
    auto [it, inserted] = tid_of_number.try_emplace(key.first, key.second, count);
    if (!inserted && (count > it->second.second ||
                      (count == it->second.second && key.second < it->second.first))) {
      it->second = {key.second, count};
    }
  }
  for (const auto& [root, key] : wanted) {
    int64_t tid = key.first;
    if (!has_forward_ops.contains(tid)) {
      auto it = tid_of_number.find(key.first);
      if (it == tid_of_number.end()) continue;
      tid = it->second.first;
    }
    auto it = forward.find(std::pair(tid, key.second));
    if (it == forward.end()) continue;
    out.forward_op[root] = it->second;
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
  LinkByFlows(trace, links, out);
  LinkBySequenceNumbers(trace, links, out);
  for (uint32_t root : out.roots) {
    if (!out.accumulate_grad[root] && out.forward_op[root] == kNoEvent) ++out.unlinked;
  }
  return out;
}

}  // namespace profdiff::analysis
