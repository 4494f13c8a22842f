#include "analysis/run_communication.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "analysis/collective_names.h"

namespace profdiff::analysis {
namespace {

// A call's place: worker index and call index.
struct CallRef {
  size_t worker;
  int call;
};

using InstanceKey = std::tuple<std::string, std::string, int64_t, int32_t>;
using GroupKey =
    std::tuple<std::string, std::string, int64_t, std::string, int32_t>;

}  // namespace

bool IsStraggler(int32_t last_arrivals, int32_t instances, int32_t rank_count) {
  if (instances < 4 || rank_count < 2) return false;
  const double m = instances;
  const double p = 1.0 / rank_count;
  return last_arrivals >= 0.5 * m &&
         last_arrivals >= m * p + 3 * std::sqrt(m * p * (1 - p));
}

v1::RunCommunication RunCommunicationOf(
    const std::vector<const v1::WorkerProfile*>& workers,
    const std::vector<int32_t>& ranks) {
  const std::set<int32_t> selected(ranks.begin(), ranks.end());
  auto chosen = [&](const v1::WorkerProfile& w) {
    return selected.empty() || selected.contains(w.worker().rank());
  };
  v1::RunCommunication out;

  // Instances: (process group, collective, step, ordinal) -> its calls.
  std::map<InstanceKey, std::vector<CallRef>> instances;
  for (size_t w = 0; w < workers.size(); ++w) {
    const v1::WorkerProfile& worker = *workers[w];
    for (int c = 0; c < worker.collective_calls_size(); ++c) {
      const v1::CollectiveCall& call = worker.collective_calls(c);
      if (call.step_index() < 0) {
        if (chosen(worker))
          out.set_calls_outside_steps(out.calls_outside_steps() + 1);
        continue;
      }
      instances[{call.process_group(), call.collective(), call.step(),
                 call.ordinal()}]
          .push_back({w, c});
    }
  }

  // Per call: the transfer time of its instance. Per worker: last arrivals.
  std::vector<std::vector<double>> transfer(workers.size());
  for (size_t w = 0; w < workers.size(); ++w)
    transfer[w].resize(workers[w]->collective_calls_size());
  std::vector<int32_t> multi_rank(workers.size()), last(workers.size());
  std::vector<std::map<std::string, int32_t>> last_in(workers.size());
  int32_t unique_last = 0, matched = 0;
  auto duration = [&](const CallRef& r) {
    return workers[r.worker]->collective_calls(r.call).duration_us();
  };
  for (const auto& [key, calls] : instances) {
    double shortest = duration(calls.front());
    for (const CallRef& r : calls) shortest = std::min(shortest, duration(r));
    for (const CallRef& r : calls) transfer[r.worker][r.call] = shortest;
    if (calls.size() < 2) continue;
    ++matched;
    const CallRef* last_ref = nullptr;
    int at_shortest = 0;
    for (const CallRef& r : calls) {
      ++multi_rank[r.worker];
      if (duration(r) == shortest) {
        ++at_shortest;
        last_ref = &r;
      }
    }
    if (at_shortest != 1) continue;
    ++unique_last;
    ++last[last_ref->worker];
    ++last_in[last_ref->worker][std::get<1>(key)];
  }
  out.set_instances(static_cast<int32_t>(instances.size()));

  // Groups and their slots, ranks and their steps (the selected workers).
  std::map<GroupKey, v1::CollectiveGroup> groups;
  std::map<std::tuple<GroupKey, int32_t, int32_t>, v1::CollectiveSlot*> slots;
  for (size_t w = 0; w < workers.size(); ++w) {
    const v1::WorkerProfile& worker = *workers[w];
    if (!chosen(worker)) continue;
    const int32_t rank = worker.worker().rank();
    v1::RankCommunication* r = out.add_ranks();
    r->set_rank(rank);
    r->set_kept_steps(worker.steps_size());
    r->set_instances(multi_rank[w]);
    r->set_last_arrivals(last[w]);
    for (int s = 0; s < worker.steps_size(); ++s) {
      v1::RankCommunicationStep* step = r->add_steps();
      step->set_step_index(s);
      step->set_collective_us(worker.steps(s).collective_us());
      step->set_exposed_us(worker.steps(s).collective_exposed_us());
    }
    for (int c = 0; c < worker.collective_calls_size(); ++c) {
      const v1::CollectiveCall& call = worker.collective_calls(c);
      if (call.step_index() < 0 || call.step_index() >= worker.steps_size())
        continue;
      const double t = transfer[w][c];
      const double wait = call.duration_us() - t;
      v1::RankCommunicationStep* step = r->mutable_steps(call.step_index());
      step->set_transfer_us(step->transfer_us() + t);
      step->set_wait_us(step->wait_us() + wait);
      step->set_time_us(step->time_us() + call.duration_us());
      const GroupKey key{call.collective(), call.process_group(), call.bytes(),
                         call.dtype(), call.group_size()};
      v1::CollectiveGroup& group = groups[key];
      if (group.collective().empty()) {
        group.set_collective(call.collective());
        group.set_process_group(call.process_group());
        group.set_bytes_per_call(call.bytes());
        group.set_dtype(call.dtype());
        group.set_group_size(call.group_size());
        group.set_busbw_factor(
            BusBandwidthFactor(call.collective(), call.group_size()));
      }
      if (call.size_missing()) group.set_size_missing(true);
      v1::CollectiveSlot*& slot = slots[{key, rank, call.step_index()}];
      if (slot == nullptr) {
        slot = group.add_slots();
        slot->set_rank(rank);
        slot->set_step_index(call.step_index());
      }
      slot->set_calls(slot->calls() + 1);
      slot->set_bytes(slot->bytes() + static_cast<double>(call.bytes()));
      slot->set_time_us(slot->time_us() + call.duration_us());
      slot->set_transfer_us(slot->transfer_us() + t);
      slot->set_wait_us(slot->wait_us() + wait);
    }
  }
  for (auto& [key, group] : groups) *out.add_groups() = std::move(group);

  // The straggler, over every rank.
  size_t most = 0;
  for (size_t w = 1; w < workers.size(); ++w) {
    if (last[w] > last[most]) most = w;
  }
  v1::StragglerVerdict* verdict = out.mutable_straggler();
  verdict->set_rank(-1);
  verdict->set_instances(unique_last);
  verdict->set_matched(matched);
  if (!workers.empty() && last[most] > 0) {
    verdict->set_rank(workers[most]->worker().rank());
    verdict->set_last_arrivals(last[most]);
    verdict->set_share(static_cast<double>(last[most]) / unique_last);
    verdict->set_collective(last_in[most].size() == 1
                                ? last_in[most].begin()->first
                                : "collectives");
    verdict->set_found(IsStraggler(last[most], unique_last,
                                   static_cast<int32_t>(workers.size())));
  }
  return out;
}

}  // namespace profdiff::analysis
