#include "analysis/digest_communication.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "analysis/moments.h"
#include "base/str_cat.h"

namespace profdiff::analysis {
namespace {

using Values = std::array<double, kCollectiveMetrics>;

// A row while the groups are read: per rank (by position in run.ranks), its
// slots.
struct Row {
  v1::DigestCollectiveRow digest;
  std::map<size_t, std::vector<Values>> ranks;
};

class Rows {
 public:
  explicit Rows(const v1::RunCommunication& run) : run_(run) {
    for (int r = 0; r < run.ranks_size(); ++r)
      position_[run.ranks(r).rank()] = static_cast<size_t>(r);
  }

  template <typename Key>
  void Add(const Key& key, const v1::CollectiveGroup& g, bool pooled) {
    auto [it, inserted] = index_.try_emplace(KeyText(key), rows_.size());
    if (inserted) {
      v1::DigestCollectiveRow& d = rows_.emplace_back().digest;
      d.set_collective(g.collective());
      d.set_process_group(g.process_group());
      if (!pooled) {
        d.set_bytes_per_call(g.bytes_per_call());
        d.set_dtype(g.dtype());
      }
      d.set_group_size(g.group_size());
      d.set_busbw_factor(g.busbw_factor());
    }
    Row& row = rows_[it->second];
    if (g.size_missing()) row.digest.set_size_missing(true);
    for (const v1::CollectiveSlot& slot : g.slots()) {
      auto rank = position_.find(slot.rank());
      if (rank == position_.end()) continue;
      std::vector<Values>& slots = row.ranks[rank->second];
      slots.resize(static_cast<size_t>(std::max(
          run_.ranks(static_cast<int>(rank->second)).kept_steps(), 1)));
      const size_t at = static_cast<size_t>(std::max(slot.step_index(), 0));
      if (at >= slots.size()) continue;
      Values& v = slots[at];
      v[kCollectiveCalls] += slot.calls();
      v[kCollectiveBytes] += slot.bytes();
      v[kCollectiveTime] += slot.time_us();
      v[kCollectiveTransfer] += slot.transfer_us();
      v[kCollectiveWait] += slot.wait_us();
    }
  }

  // The rows with their metrics, ranks in run order.
  google::protobuf::RepeatedPtrField<v1::DigestCollectiveRow> Finish() {
    google::protobuf::RepeatedPtrField<v1::DigestCollectiveRow> out;
    for (Row& row : rows_) {
      v1::DigestCollectiveRow& d = row.digest;
      for (int m = 0; m < kCollectiveMetrics; ++m) d.add_metrics();
      for (const auto& [position, slots] : row.ranks) {
        for (int m = 0; m < kCollectiveMetrics; ++m) {
          v1::ReducedMetric& r = *d.mutable_metrics(m);
          double sum = 0;
          v1::Moments samples;
          for (const Values& v : slots) {
            sum += v[m];
            AddSample(v[m], samples);
          }
          r.set_per_step(r.per_step() +
                         sum / static_cast<double>(slots.size()));
          r.set_total(r.total() + sum);
          MergeMoments(samples, *r.mutable_samples());
        }
        for (const Values& v : slots) {
          if (v[kCollectiveCalls] > 0) {
            AddSample(v[kCollectiveBytes] / v[kCollectiveCalls],
                      *d.mutable_bytes_per_call_samples());
          }
        }
      }
      *out.Add() = std::move(d);
    }
    return out;
  }

 private:
  template <typename Key>
  static std::string KeyText(const Key& key) {
    return std::apply(
        [](const auto&... part) {
          std::string text;
          ((text += base::StrCat(part), text.push_back('\x1f')), ...);
          return text;
        },
        key);
  }

  const v1::RunCommunication& run_;
  std::map<int32_t, size_t> position_;
  std::map<std::string, size_t> index_;
  std::vector<Row> rows_;
};

}  // namespace

v1::DigestCommunication DigestCommunicationOf(v1::RunCommunication run) {
  Rows by_size(run), pooled(run);
  for (const v1::CollectiveGroup& g : run.groups()) {
    by_size.Add(std::tuple(g.collective(), g.process_group(),
                           g.bytes_per_call(), g.dtype(), g.group_size()),
                g, /*pooled=*/false);
    pooled.Add(std::tuple(g.collective(), g.process_group(), g.group_size()), g,
               /*pooled=*/true);
  }
  v1::DigestCommunication out;
  *out.mutable_collectives() = by_size.Finish();
  *out.mutable_by_collective() = pooled.Finish();
  out.set_rank_count(run.ranks_size());
  int64_t slots = 0;
  for (const v1::RankCommunication& r : run.ranks())
    slots += std::max(r.kept_steps(), 1);
  out.set_slots(slots);
  *out.mutable_ranks() = std::move(*run.mutable_ranks());
  *out.mutable_straggler() = std::move(*run.mutable_straggler());
  out.set_instances(run.instances());
  return out;
}

}  // namespace profdiff::analysis
