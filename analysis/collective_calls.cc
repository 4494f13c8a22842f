#include "analysis/collective_calls.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "analysis/collective_names.h"
#include "analysis/interval_set.h"
#include "analysis/name_test_memo.h"
#include "analysis/step_breakdown.h"
#include "analysis/step_of_event.h"

namespace profdiff::analysis {
namespace {

using trace::ArgKey;
using trace::EventKind;

// Σ elements and bytes of a range's tensor inputs: "Input Dims" as
// [[a, b], [c], []] and "Input type" as ["float", "float", ""].
struct Inputs {
  int64_t elements = 0;
  int64_t bytes = 0;
  std::string dtype;      // of the first input with a known element size
  bool recorded = false;  // the range has "Input Dims" at all
};

std::vector<std::vector<int64_t>> ParseShapes(std::string_view json) {
  std::vector<std::vector<int64_t>> shapes;
  int depth = 0;
  std::optional<int64_t> number;
  for (char c : json) {
    if (c >= '0' && c <= '9') {
      number = number.value_or(0) * 10 + (c - '0');
      continue;
    }
    if (number && depth == 2) shapes.back().push_back(*number);
    number.reset();
    if (c == '[' && ++depth == 2) shapes.emplace_back();
    if (c == ']') --depth;
  }
  return shapes;
}

std::vector<std::string> ParseStrings(std::string_view json) {
  std::vector<std::string> out;
  bool in_string = false;
  bool escaped = false;
  for (char c : json) {
    if (!in_string) {
      if (c == '"') {
        in_string = true;
        out.emplace_back();
      }
      continue;
    }
    if (escaped) {
      out.back().push_back(c);
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == '"') {
      in_string = false;
    } else {
      out.back().push_back(c);
    }
  }
  return out;
}

Inputs InputsOf(const trace::Trace& trace, uint32_t event) {
  Inputs in;
  const std::vector<std::vector<int64_t>> shapes =
      ParseShapes(trace.strings.Get(trace.events.input_shapes[event]));
  in.recorded = !shapes.empty();
  std::vector<std::string> types;
  if (auto t = trace.StringArg(event, ArgKey::kInputTypes))
    types = ParseStrings(trace.strings.Get(*t));
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (shapes[i].empty()) continue;  // a scalar or a list: no message
    int64_t elements = 1;
    for (int64_t d : shapes[i]) elements *= d;
    const int64_t size = i < types.size() ? ElementBytes(types[i]) : 0;
    if (size > 0 && in.dtype.empty()) in.dtype = types[i];
    in.elements += elements;
    in.bytes += elements * size;
  }
  return in;
}

bool IsLibraryRange(std::string_view name) {
  return name.starts_with("nccl:") || name.starts_with("gloo:");
}

// A call while it is being put together.
struct PendingCall {
  std::vector<uint32_t> members;  // the outermost range first
  std::vector<Interval> device;   // launched device activities
  uint32_t library = kNoEvent;    // its nccl:/gloo: range
  CollectiveCallRow row;
};

class CallBuilder {
 public:
  CallBuilder(const trace::Trace& trace, const EventLinks& links)
      : trace_(trace), t_(trace.events), links_(links) {}

  std::vector<PendingCall> Build() {
    NestRanges();
    AttachDeviceActivities();
    std::vector<PendingCall> calls;
    for (PendingCall& call : calls_) {
      if (Describe(call)) calls.push_back(std::move(call));
    }
    return LendEnqueueArguments(std::move(calls));
  }

  const std::vector<uint32_t>& call_of() const { return call_of_; }
  // Device activities some call launched.
  const std::vector<uint32_t>& device_in_call() const {
    return device_in_call_;
  }

 private:
  std::string_view Name(uint32_t e) const {
    return trace_.strings.Get(t_.name[e]);
  }

  // Outermost collective ranges per thread and what nests in them.
  void NestRanges() {
    std::vector<uint32_t> ranges;
    for (uint32_t i = 0; i < t_.size(); ++i) {
      if ((t_.kind[i] == EventKind::kCpuOp ||
           t_.kind[i] == EventKind::kUserAnnotation) &&
          IsCollectiveOpName(Name(i)))
        ranges.push_back(i);
    }
    std::sort(ranges.begin(), ranges.end(), [&](uint32_t a, uint32_t b) {
      return std::tuple(t_.pid[a], t_.tid[a], t_.start_ns[a],
                        -t_.duration_ns[a]) < std::tuple(t_.pid[b], t_.tid[b],
                                                         t_.start_ns[b],
                                                         -t_.duration_ns[b]);
    });
    call_of_.assign(t_.size(), kNoEvent);
    uint32_t open = kNoEvent;  // the current outermost range
    for (uint32_t e : ranges) {
      const bool inside = open != kNoEvent && t_.pid[open] == t_.pid[e] &&
                          t_.tid[open] == t_.tid[e] &&
                          t_.end_ns(e) <= t_.end_ns(open);
      if (!inside) {
        open = e;
        calls_.emplace_back();
      }
      calls_.back().members.push_back(e);
      call_of_[e] = static_cast<uint32_t>(calls_.size() - 1);
    }
  }

  // Device activities launched from an operator inside a call.
  void AttachDeviceActivities() {
    for (uint32_t d : links_.device_activities) {
      for (uint32_t op = links_.DeviceOp(d); op != kNoEvent;
           op = links_.op_parent[op]) {
        if (call_of_[op] != kNoEvent) {
          calls_[call_of_[op]].device.push_back({t_.start_ns[d], t_.end_ns(d)});
          device_in_call_.push_back(d);
          break;
        }
      }
    }
  }

  std::optional<trace::StringId> StringArgOf(const PendingCall& call,
                                             ArgKey key) const {
    for (uint32_t e : call.members) {
      if (auto s = trace_.StringArg(e, key)) return s;
    }
    return std::nullopt;
  }
  std::string StringOf(const PendingCall& call, ArgKey key) const {
    auto s = StringArgOf(call, key);
    return s ? std::string(trace_.strings.Get(*s)) : std::string();
  }
  std::optional<int64_t> IntOf(const PendingCall& call, ArgKey key) const {
    for (uint32_t e : call.members) {
      if (auto v = trace_.IntArg(e, key)) return v;
    }
    return std::nullopt;
  }

  // Names the call and sizes its message; false when it is no collective.
  bool Describe(PendingCall& call) const {
    for (uint32_t e : call.members) {
      if (IsLibraryRange(Name(e))) {
        call.library = e;
        break;
      }
    }
    CollectiveCallRow& row = call.row;
    row.collective =
        CanonicalCollective(StringOf(call, ArgKey::kCollectiveName));
    if (row.collective.empty() && call.library != kNoEvent)
      row.collective = CanonicalCollective(Name(call.library));
    if (row.collective.empty())
      row.collective = CanonicalCollective(Name(call.members.front()));
    if (row.collective.empty()) return false;
    row.process_group = StringOf(call, ArgKey::kProcessGroupName);
    row.process_group_ranks = StringOf(call, ArgKey::kProcessGroupRanks);
    row.group_size = static_cast<int32_t>(
        IntOf(call, ArgKey::kGroupSize).value_or(trace_.metadata.world_size));
    row.dtype = StringOf(call, ArgKey::kDtype);
    const Inputs library =
        call.library != kNoEvent ? InputsOf(trace_, call.library) : Inputs{};
    const auto in = IntOf(call, ArgKey::kInMsgNelems);
    const auto out = IntOf(call, ArgKey::kOutMsgNelems);
    if (row.dtype.empty()) row.dtype = library.dtype;
    if (in || out) {
      row.in_elements = in.value_or(*out);
      row.out_elements = out.value_or(*in);
      row.bytes =
          std::max(row.in_elements, row.out_elements) * ElementBytes(row.dtype);
    } else {
      row.in_elements = row.out_elements = library.elements;
      row.bytes = library.bytes;
      row.size_missing = !library.recorded;
    }
    const uint32_t root = call.members.front();
    row.start_ns = t_.start_ns[root];
    if (!call.device.empty()) {
      call.device = MergeIntervals(std::move(call.device));
      row.on_device = true;
      row.duration_ns = TotalLength(call.device);
    } else {
      row.duration_ns = t_.duration_ns[root];
    }
    return true;
  }

  // Gloo: the k-th enqueue of a collective (a call with no library range and
  // no device work) lends its arguments to the k-th `gloo:` range of that
  // collective that runs on its own (worker) thread, and is dropped.
  std::vector<PendingCall> LendEnqueueArguments(
      std::vector<PendingCall> calls) const {
    std::map<std::string, std::vector<size_t>> enqueues, executions;
    for (size_t i = 0; i < calls.size(); ++i) {
      const PendingCall& c = calls[i];
      if (c.library == c.members.front() &&
          Name(c.library).starts_with("gloo:"))
        executions[c.row.collective].push_back(i);
      else if (c.library == kNoEvent && c.device.empty())
        enqueues[c.row.collective].push_back(i);
    }
    std::vector<bool> dropped(calls.size(), false);
    for (auto& [collective, queued] : enqueues) {
      const std::vector<size_t>& ran = executions[collective];
      for (size_t k = 0; k < queued.size() && k < ran.size(); ++k) {
        const CollectiveCallRow& from = calls[queued[k]].row;
        CollectiveCallRow& to = calls[ran[k]].row;
        if (to.process_group.empty()) to.process_group = from.process_group;
        if (to.process_group_ranks.empty())
          to.process_group_ranks = from.process_group_ranks;
        if (IntOf(calls[queued[k]], ArgKey::kGroupSize))
          to.group_size = from.group_size;
        if (to.bytes == 0) {
          to.in_elements = from.in_elements;
          to.out_elements = from.out_elements;
          to.bytes = from.bytes;
          to.size_missing = from.size_missing;
        }
        if (to.dtype.empty()) to.dtype = from.dtype;
        dropped[queued[k]] = true;
      }
    }
    std::vector<PendingCall> kept;
    for (size_t i = 0; i < calls.size(); ++i) {
      if (!dropped[i]) kept.push_back(std::move(calls[i]));
    }
    return kept;
  }

  const trace::Trace& trace_;
  const trace::EventTable& t_;
  const EventLinks& links_;
  std::vector<PendingCall> calls_;
  std::vector<uint32_t> call_of_;  // per event: index into calls_
  std::vector<uint32_t> device_in_call_;
};

// Host operators that compute: no collective range, nothing enclosing one.
std::map<std::pair<int64_t, int64_t>, std::vector<Interval>> HostCompute(
    const trace::Trace& trace, const EventLinks& links,
    const std::vector<uint32_t>& call_of) {
  const trace::EventTable& t = trace.events;
  std::vector<bool> encloses(t.size(), false);
  for (uint32_t op : links.operators) {
    if (call_of[op] == kNoEvent) continue;
    for (uint32_t p = links.op_parent[op]; p != kNoEvent && !encloses[p];
         p = links.op_parent[p])
      encloses[p] = true;
  }
  std::map<std::pair<int64_t, int64_t>, std::vector<Interval>> by_thread;
  for (uint32_t op : links.operators) {
    if (call_of[op] != kNoEvent || encloses[op]) continue;
    by_thread[{t.pid[op], t.tid[op]}].push_back({t.start_ns[op], t.end_ns(op)});
  }
  for (auto& [thread, intervals] : by_thread)
    intervals = MergeIntervals(std::move(intervals));
  return by_thread;
}

}  // namespace

CollectiveCalls ComputeCollectiveCalls(
    const trace::Trace& trace, const EventLinks& links,
    const StepWindows& steps, const std::vector<int32_t>& step_of_event) {
  const trace::EventTable& t = trace.events;
  CallBuilder builder(trace, links);
  std::vector<PendingCall> calls = builder.Build();
  std::sort(calls.begin(), calls.end(),
            [](const PendingCall& a, const PendingCall& b) {
              return a.row.start_ns < b.row.start_ns;
            });

  CollectiveCalls out;
  out.steps.resize(steps.kept.size());
  std::map<std::tuple<int32_t, std::string, std::string>, int32_t> ordinals;
  for (PendingCall& call : calls) {
    CollectiveCallRow& row = call.row;
    row.step_index = step_of_event[call.members.front()];
    row.ordinal =
        ordinals[{row.step_index, row.process_group, row.collective}]++;
  }

  // Compute the collectives can hide behind: kernels that are not
  // communication, and per host thread its computing operators.
  std::vector<bool> in_call(t.size(), false);
  for (uint32_t d : builder.device_in_call()) in_call[d] = true;
  std::vector<Interval> compute_kernels;
  NameTestMemo nccl(trace.strings, ContainsNccl);
  for (uint32_t d : links.device_activities) {
    if (t.kind[d] == EventKind::kKernel && !in_call[d] && !nccl(t.name[d]))
      compute_kernels.push_back({t.start_ns[d], t.end_ns(d)});
  }
  compute_kernels = MergeIntervals(std::move(compute_kernels));
  const auto host_compute = HostCompute(trace, links, builder.call_of());
  std::map<std::pair<int64_t, int64_t>, std::vector<Interval>> other_threads;
  auto compute_beside = [&](int64_t pid,
                            int64_t tid) -> const std::vector<Interval>& {
    auto [it, inserted] = other_threads.try_emplace({pid, tid});
    if (inserted) {
      for (const auto& [thread, intervals] : host_compute) {
        if (thread != std::pair(pid, tid))
          it->second = Union(it->second, intervals);
      }
    }
    return it->second;
  };

  std::vector<std::vector<Interval>> busy(steps.kept.size());
  std::vector<std::vector<Interval>> exposed(steps.kept.size());
  for (const PendingCall& call : calls) {
    const int32_t s = call.row.step_index;
    if (s == kNoStep) continue;
    const uint32_t root = call.members.front();
    const std::vector<Interval> own =
        call.device.empty()
            ? std::vector<Interval>{{t.start_ns[root], t.end_ns(root)}}
            : call.device;
    const std::vector<Interval> clipped =
        Clip(own, steps.kept[s].start_ns, steps.kept[s].end_ns);
    const std::vector<Interval> hidden_by =
        call.device.empty() ? compute_beside(t.pid[root], t.tid[root])
                            : compute_kernels;
    busy[s].insert(busy[s].end(), clipped.begin(), clipped.end());
    for (const Interval& piece : Difference(clipped, hidden_by))
      exposed[s].push_back(piece);
  }
  for (size_t s = 0; s < steps.kept.size(); ++s) {
    out.steps[s].collective_ns =
        TotalLength(MergeIntervals(std::move(busy[s])));
    out.steps[s].exposed_ns =
        TotalLength(MergeIntervals(std::move(exposed[s])));
  }
  for (PendingCall& call : calls) out.calls.push_back(std::move(call.row));
  return out;
}

}  // namespace profdiff::analysis
