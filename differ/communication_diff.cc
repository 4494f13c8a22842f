#include "differ/communication_diff.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "base/str_cat.h"
#include "differ/change_class.h"
#include "differ/side.h"

namespace profdiff::differ {
namespace {

enum Metric { kCalls, kBytes, kTime, kTransfer, kWait, kMetrics };
using Values = std::array<double, kMetrics>;

// One side's sample slots: one per kept step of each rank (one for a rank
// without kept steps).
class Slots {
 public:
  explicit Slots(const v1::RunCommunication& run) {
    for (const v1::RankCommunication& r : run.ranks()) {
      offset_[r.rank()] = count_;
      steps_.push_back(std::max(r.kept_steps(), 1));
      count_ += static_cast<size_t>(std::max(r.kept_steps(), 1));
    }
  }
  size_t count() const { return count_; }
  size_t ranks() const { return steps_.size(); }
  // Slot of (rank, step_index); count() when the rank is not on this side.
  size_t Of(int32_t rank, int32_t step_index) const {
    auto it = offset_.find(rank);
    if (it == offset_.end()) return count_;
    return it->second + static_cast<size_t>(std::max(step_index, 0));
  }
  // Mean over ranks of the per-step mean (or the total) of per-slot values.
  double RunValue(const std::vector<double>& per_slot, bool per_step) const {
    if (steps_.empty()) return 0;
    double sum = 0;
    size_t at = 0;
    for (int32_t n : steps_) {
      double rank_sum = 0;
      for (int32_t s = 0; s < n; ++s) rank_sum += per_slot[at++];
      sum += per_step ? rank_sum / n : rank_sum;
    }
    return sum / static_cast<double>(steps_.size());
  }

 private:
  std::map<int32_t, size_t> offset_;
  std::vector<int32_t> steps_;
  size_t count_ = 0;
};

void AddSlot(const v1::CollectiveSlot& slot, const Slots& slots,
             std::vector<Values>& into) {
  const size_t at = slots.Of(slot.rank(), slot.step_index());
  if (at >= into.size()) return;
  Values& v = into[at];
  v[kCalls] += slot.calls();
  v[kBytes] += slot.bytes();
  v[kTime] += slot.time_us();
  v[kTransfer] += slot.transfer_us();
  v[kWait] += slot.wait_us();
}

std::vector<double> Column(const std::vector<Values>& slots, Metric m) {
  std::vector<double> out(slots.size());
  for (size_t s = 0; s < slots.size(); ++s) out[s] = slots[s][m];
  return out;
}

// Per sample with calls: its bytes per call.
std::vector<double> BytesPerCall(const std::vector<Values>& slots) {
  std::vector<double> out;
  for (const Values& v : slots) {
    if (v[kCalls] > 0) out.push_back(v[kBytes] / v[kCalls]);
  }
  return out;
}

v1::CollectiveValues ValuesOf(const std::vector<Values>& per_slot,
                              const Slots& slots, bool per_step,
                              double busbw_factor) {
  v1::CollectiveValues v;
  v.set_calls(slots.RunValue(Column(per_slot, kCalls), per_step));
  v.set_bytes(slots.RunValue(Column(per_slot, kBytes), per_step));
  v.set_time_us(slots.RunValue(Column(per_slot, kTime), per_step));
  v.set_transfer_us(slots.RunValue(Column(per_slot, kTransfer), per_step));
  v.set_wait_us(slots.RunValue(Column(per_slot, kWait), per_step));
  v.set_bytes_per_call(v.calls() > 0 ? v.bytes() / v.calls() : 0);
  // bytes / µs / 1e3 = GB/s.
  v.set_algbw_gbps(v.transfer_us() > 0 ? v.bytes() / v.transfer_us() / 1e3 : 0);
  v.set_busbw_gbps(v.algbw_gbps() * busbw_factor);
  return v;
}

template <typename V, typename F>
void EachValue(V& out, const V& a, const V& b, F f) {
  const auto* d = V::descriptor();
  const auto* r = V::GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const auto* field = d->field(i);
    if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_DOUBLE)
      r->SetDouble(&out, field,
                   f(r->GetDouble(a, field), r->GetDouble(b, field)));
    else if (field->cpp_type() ==
             google::protobuf::FieldDescriptor::CPPTYPE_INT32)
      r->SetInt32(&out, field,
                  static_cast<int32_t>(
                      f(r->GetInt32(a, field), r->GetInt32(b, field))));
  }
}

// A row while both sides are read in: its key and per-slot series.
struct Row {
  v1::CollectiveDiff diff;  // key fields
  std::vector<Values> slots[2];
  bool present[2] = {false, false};
  double busbw_factor = 1;
};

class RowTable {
 public:
  RowTable(const Slots& a, const Slots& b) : slots_{&a, &b} {}
  template <typename Key>
  Row& Get(const Key& key, const v1::CollectiveGroup& group, bool pooled) {
    auto [it, inserted] = index_.try_emplace(KeyText(key), rows_.size());
    if (inserted) {
      Row& row = rows_.emplace_back();
      row.diff.set_collective(group.collective());
      row.diff.set_process_group(group.process_group());
      if (!pooled) {
        row.diff.set_bytes_per_call(group.bytes_per_call());
        row.diff.set_dtype(group.dtype());
      }
      row.diff.set_group_size(group.group_size());
      row.busbw_factor = group.busbw_factor();
      for (int s = 0; s < 2; ++s) row.slots[s].assign(slots_[s]->count(), {});
    }
    return rows_[it->second];
  }
  std::vector<Row>& rows() { return rows_; }

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
  const Slots* slots_[2];
  std::map<std::string, size_t> index_;
  std::vector<Row> rows_;
};

std::vector<v1::CollectiveDiff> Finish(std::vector<Row>& rows,
                                       const Slots* slots[2],
                                       const ChangeThreshold& threshold,
                                       bool per_step) {
  const ChangeThreshold counts{threshold.min_pct, 0};
  std::vector<v1::CollectiveDiff> out;
  for (Row& row : rows) {
    v1::CollectiveDiff& d = row.diff;
    *d.mutable_baseline() =
        ValuesOf(row.slots[0], *slots[0], per_step, row.busbw_factor);
    *d.mutable_experimental() =
        ValuesOf(row.slots[1], *slots[1], per_step, row.busbw_factor);
    EachValue(*d.mutable_delta(), d.baseline(), d.experimental(),
              [](double x, double y) { return y - x; });
    EachValue(*d.mutable_delta_pct(), d.baseline(), d.experimental(),
              [](double x, double y) { return DeltaPct(x, y); });
    auto noise = [&](Metric m, const ChangeThreshold& t) {
      return CompareSamples(Column(row.slots[0], m), Column(row.slots[1], m),
                            t);
    };
    *d.mutable_calls_noise() = noise(kCalls, counts);
    *d.mutable_bytes_noise() = noise(kBytes, counts);
    *d.mutable_time_noise() = noise(kTime, threshold);
    *d.mutable_transfer_noise() = noise(kTransfer, threshold);
    *d.mutable_wait_noise() = noise(kWait, threshold);
    *d.mutable_bytes_per_call_noise() = CompareSamples(
        BytesPerCall(row.slots[0]), BytesPerCall(row.slots[1]), counts);
    d.set_change(ChangeClass(row.present[0] && d.baseline().calls() > 0,
                             row.present[1] && d.experimental().calls() > 0,
                             d.baseline().time_us(), d.experimental().time_us(),
                             d.time_noise(), threshold));
    out.push_back(std::move(d));
  }
  // The most time first.
  std::stable_sort(
      out.begin(), out.end(),
      [](const v1::CollectiveDiff& x, const v1::CollectiveDiff& y) {
        return std::max(x.baseline().time_us(), x.experimental().time_us()) >
               std::max(y.baseline().time_us(), y.experimental().time_us());
      });
  return out;
}

v1::RankCommunicationValues RankValues(const v1::RankCommunication& r,
                                       bool per_step) {
  v1::RankCommunicationValues v;
  for (const v1::RankCommunicationStep& s : r.steps()) {
    v.set_collective_us(v.collective_us() + s.collective_us());
    v.set_exposed_us(v.exposed_us() + s.exposed_us());
    v.set_wait_us(v.wait_us() + s.wait_us());
    v.set_transfer_us(v.transfer_us() + s.transfer_us());
    v.set_time_us(v.time_us() + s.time_us());
  }
  if (per_step && r.steps_size() > 0) {
    const double n = r.steps_size();
    v.set_collective_us(v.collective_us() / n);
    v.set_exposed_us(v.exposed_us() / n);
    v.set_wait_us(v.wait_us() / n);
    v.set_transfer_us(v.transfer_us() / n);
    v.set_time_us(v.time_us() / n);
  }
  v.set_overlap_ratio(
      v.collective_us() > 0 ? 1 - v.exposed_us() / v.collective_us() : 0);
  v.set_last_arrivals(r.last_arrivals());
  v.set_instances(r.instances());
  return v;
}

std::vector<double> RankSamples(const v1::RankCommunication* r,
                                double (v1::RankCommunicationStep::*field)()
                                    const) {
  std::vector<double> out;
  if (r == nullptr) return out;
  for (const v1::RankCommunicationStep& s : r->steps())
    out.push_back((s.*field)());
  return out;
}

}  // namespace

std::string StragglerVerdictText(const v1::StragglerVerdict& v) {
  if (v.matched() == 0) return "no collective ran on two ranks";
  if (v.instances() == 0) {
    return base::StrCat("no rank was last alone in any of ", v.matched(),
                        " instances");
  }
  const std::string of =
      v.collective() == "collectives"
          ? "collectives"
          : base::StrCat(v.collective(),
                         v.collective().ends_with("s") ? "" : "s");
  const std::string share =
      base::StrCat("rank ", v.rank(), " last in ",
                   static_cast<int>(std::lround(100 * v.share())), "% of ", of,
                   " (", v.last_arrivals(), " of ", v.instances(), ")");
  return v.found() ? share : base::StrCat("no straggler: ", share);
}

v1::CommunicationDiff DiffCommunication(
    const v1::RunCommunication& baseline,
    const v1::RunCommunication& experimental, const ChangeThreshold& threshold,
    bool per_step) {
  const Slots a(baseline), b(experimental);
  const Slots* slots[2] = {&a, &b};
  const v1::RunCommunication* runs[2] = {&baseline, &experimental};
  RowTable by_size(a, b), pooled(a, b);
  for (int side = 0; side < 2; ++side) {
    for (const v1::CollectiveGroup& g : runs[side]->groups()) {
      Row* rows[2] = {&by_size.Get(std::tuple(g.collective(), g.process_group(),
                                              g.bytes_per_call(), g.dtype(),
                                              g.group_size()),
                                   g, false),
                      &pooled.Get(std::tuple(g.collective(), g.process_group(),
                                             g.group_size()),
                                  g, true)};
      for (Row* row : rows) {
        row->present[side] = true;
        for (const v1::CollectiveSlot& slot : g.slots())
          AddSlot(slot, *slots[side], row->slots[side]);
      }
    }
  }
  v1::CommunicationDiff out;
  for (v1::CollectiveDiff& d :
       Finish(pooled.rows(), slots, threshold, per_step))
    *out.add_by_collective() = std::move(d);
  for (v1::CollectiveDiff& d :
       Finish(by_size.rows(), slots, threshold, per_step))
    *out.add_collectives() = std::move(d);

  std::map<int32_t, const v1::RankCommunication*> ranks[2];
  for (int side = 0; side < 2; ++side) {
    for (const v1::RankCommunication& r : runs[side]->ranks())
      ranks[side][r.rank()] = &r;
  }
  std::map<int32_t, bool> all;
  for (int side = 0; side < 2; ++side)
    for (const auto& [rank, r] : ranks[side]) all[rank] = true;
  for (const auto& [rank, unused] : all) {
    const v1::RankCommunication* r[2] = {nullptr, nullptr};
    for (int side = 0; side < 2; ++side) {
      auto it = ranks[side].find(rank);
      if (it != ranks[side].end()) r[side] = it->second;
    }
    v1::RankCommunicationDiff* d = out.add_ranks();
    d->set_rank(rank);
    d->set_baseline_missing(r[0] == nullptr);
    d->set_experimental_missing(r[1] == nullptr);
    if (r[0]) *d->mutable_baseline() = RankValues(*r[0], per_step);
    if (r[1]) *d->mutable_experimental() = RankValues(*r[1], per_step);
    EachValue(*d->mutable_delta(), d->baseline(), d->experimental(),
              [](double x, double y) { return y - x; });
    *d->mutable_exposed_noise() = CompareSamples(
        RankSamples(r[0], &v1::RankCommunicationStep::exposed_us),
        RankSamples(r[1], &v1::RankCommunicationStep::exposed_us), threshold);
    *d->mutable_wait_noise() = CompareSamples(
        RankSamples(r[0], &v1::RankCommunicationStep::wait_us),
        RankSamples(r[1], &v1::RankCommunicationStep::wait_us), threshold);
  }
  *out.mutable_baseline_straggler() = baseline.straggler();
  *out.mutable_experimental_straggler() = experimental.straggler();
  out.set_baseline_verdict(StragglerVerdictText(baseline.straggler()));
  out.set_experimental_verdict(StragglerVerdictText(experimental.straggler()));
  out.set_baseline_instances(baseline.instances());
  out.set_experimental_instances(experimental.instances());
  return out;
}

}  // namespace profdiff::differ
