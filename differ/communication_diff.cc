#include "differ/communication_diff.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "analysis/digest_communication.h"
#include "analysis/moments.h"
#include "base/str_cat.h"
#include "differ/change_class.h"
#include "differ/side.h"

namespace profdiff::differ {
namespace {

using analysis::kCollectiveBytes;
using analysis::kCollectiveCalls;
using analysis::kCollectiveTime;
using analysis::kCollectiveTransfer;
using analysis::kCollectiveWait;
using Metrics = google::protobuf::RepeatedPtrField<v1::ReducedMetric>;
using Rows = google::protobuf::RepeatedPtrField<v1::DigestCollectiveRow>;

// A side's run value of metric m: the mean over its ranks of each rank's
// per-step mean (or total).
double RunValue(const v1::DigestCommunication& side, const Metrics* metrics,
                int m, bool per_step) {
  if (metrics == nullptr || side.rank_count() == 0) return 0;
  const v1::ReducedMetric& r = (*metrics)[m];
  return (per_step ? r.per_step() : r.total()) / side.rank_count();
}

// Its samples: one per kept step of each rank, 0 where a rank did not call it.
v1::Moments Samples(const v1::DigestCommunication& side, const Metrics* metrics,
                    int m) {
  v1::Moments samples;
  if (metrics != nullptr) samples = (*metrics)[m].samples();
  analysis::AddZeros(side.slots() - samples.count(), samples);
  return samples;
}

v1::CollectiveValues ValuesOf(const v1::DigestCommunication& side,
                              const v1::DigestCollectiveRow* row,
                              bool per_step) {
  const Metrics* m = row != nullptr ? &row->metrics() : nullptr;
  v1::CollectiveValues v;
  v.set_calls(RunValue(side, m, kCollectiveCalls, per_step));
  v.set_bytes(RunValue(side, m, kCollectiveBytes, per_step));
  v.set_time_us(RunValue(side, m, kCollectiveTime, per_step));
  v.set_transfer_us(RunValue(side, m, kCollectiveTransfer, per_step));
  v.set_wait_us(RunValue(side, m, kCollectiveWait, per_step));
  v.set_bytes_per_call(v.calls() > 0 ? v.bytes() / v.calls() : 0);
  // bytes / µs / 1e3 = GB/s.
  v.set_algbw_gbps(v.transfer_us() > 0 ? v.bytes() / v.transfer_us() / 1e3 : 0);
  v.set_busbw_gbps(v.algbw_gbps() *
                   (row != nullptr ? row->busbw_factor() : 1.0));
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

void ClearSizes(v1::CollectiveValues& v) {
  v.clear_bytes();
  v.clear_bytes_per_call();
  v.clear_algbw_gbps();
  v.clear_busbw_gbps();
}

// A side without recorded message sizes: what depends on them is unknown, so
// neither a delta nor a judgement of it is made (its values stay 0).
void ForgetSizes(v1::CollectiveDiff& d) {
  ClearSizes(*d.mutable_delta());
  ClearSizes(*d.mutable_delta_pct());
  if (d.baseline_size_missing()) ClearSizes(*d.mutable_baseline());
  if (d.experimental_size_missing()) ClearSizes(*d.mutable_experimental());
  d.clear_bytes_noise();
  d.clear_bytes_per_call_noise();
}

// The rows of both sides by key, first-seen order (the baseline's first).
std::vector<std::array<const v1::DigestCollectiveRow*, 2>> Paired(
    const Rows& a, const Rows& b) {
  std::map<std::tuple<std::string, std::string, int64_t, std::string, int32_t>,
           size_t>
      index;
  std::vector<std::array<const v1::DigestCollectiveRow*, 2>> out;
  const Rows* sides[2] = {&a, &b};
  for (int side = 0; side < 2; ++side) {
    for (const v1::DigestCollectiveRow& row : *sides[side]) {
      auto [it, inserted] = index.try_emplace(
          std::tuple(row.collective(), row.process_group(),
                     row.bytes_per_call(), row.dtype(), row.group_size()),
          out.size());
      if (inserted) out.push_back({nullptr, nullptr});
      out[it->second][side] = &row;
    }
  }
  return out;
}

std::vector<v1::CollectiveDiff> DiffRows(const v1::DigestCommunication& a,
                                         const Rows& a_rows,
                                         const v1::DigestCommunication& b,
                                         const Rows& b_rows,
                                         const ChangeThreshold& threshold,
                                         bool per_step) {
  const ChangeThreshold counts{threshold.min_pct, 0};
  std::vector<v1::CollectiveDiff> out;
  for (const auto& rows : Paired(a_rows, b_rows)) {
    const v1::DigestCollectiveRow& any =
        *(rows[0] != nullptr ? rows[0] : rows[1]);
    v1::CollectiveDiff& d = out.emplace_back();
    d.set_collective(any.collective());
    d.set_process_group(any.process_group());
    d.set_bytes_per_call(any.bytes_per_call());
    d.set_dtype(any.dtype());
    d.set_group_size(any.group_size());
    *d.mutable_baseline() = ValuesOf(a, rows[0], per_step);
    *d.mutable_experimental() = ValuesOf(b, rows[1], per_step);
    EachValue(*d.mutable_delta(), d.baseline(), d.experimental(),
              [](double x, double y) { return y - x; });
    EachValue(*d.mutable_delta_pct(), d.baseline(), d.experimental(),
              [](double x, double y) { return DeltaPct(x, y); });
    const Metrics* ma = rows[0] != nullptr ? &rows[0]->metrics() : nullptr;
    const Metrics* mb = rows[1] != nullptr ? &rows[1]->metrics() : nullptr;
    auto noise = [&](int m, const ChangeThreshold& t) {
      return CompareMoments(Samples(a, ma, m), Samples(b, mb, m), t);
    };
    *d.mutable_calls_noise() = noise(kCollectiveCalls, counts);
    *d.mutable_bytes_noise() = noise(kCollectiveBytes, counts);
    *d.mutable_time_noise() = noise(kCollectiveTime, threshold);
    *d.mutable_transfer_noise() = noise(kCollectiveTransfer, threshold);
    *d.mutable_wait_noise() = noise(kCollectiveWait, threshold);
    *d.mutable_bytes_per_call_noise() = CompareMoments(
        rows[0] != nullptr ? rows[0]->bytes_per_call_samples() : v1::Moments(),
        rows[1] != nullptr ? rows[1]->bytes_per_call_samples() : v1::Moments(),
        counts);
    d.set_baseline_size_missing(rows[0] != nullptr && rows[0]->size_missing());
    d.set_experimental_size_missing(rows[1] != nullptr &&
                                    rows[1]->size_missing());
    if (d.baseline_size_missing() || d.experimental_size_missing())
      ForgetSizes(d);
    d.set_change(ChangeClass(rows[0] != nullptr && d.baseline().calls() > 0,
                             rows[1] != nullptr && d.experimental().calls() > 0,
                             d.baseline().time_us(), d.experimental().time_us(),
                             d.time_noise(), threshold));
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
  return v.found() ? base::StrCat("straggler: rank ", v.rank(),
                                  ", last to arrive ", LastArrivalShare(v))
                   : base::StrCat(
                         "no straggler: most often last to arrive "
                         "rank ",
                         v.rank(), ", ", LastArrivalShare(v));
}

std::string LastArrivalShare(const v1::StragglerVerdict& v) {
  const std::string of =
      v.collective() == "collectives"
          ? "collectives"
          : base::StrCat(v.collective(),
                         v.collective().ends_with("s") ? "" : "s");
  return base::StrCat("in ", static_cast<int>(std::lround(100 * v.share())),
                      "% of ", of, " (", v.last_arrivals(), " of ",
                      v.instances(), ")");
}

v1::CommunicationDiff DiffCommunication(
    const v1::DigestCommunication& baseline,
    const v1::DigestCommunication& experimental,
    const ChangeThreshold& threshold, bool per_step) {
  v1::CommunicationDiff out;
  for (v1::CollectiveDiff& d :
       DiffRows(baseline, baseline.by_collective(), experimental,
                experimental.by_collective(), threshold, per_step))
    *out.add_by_collective() = std::move(d);
  for (v1::CollectiveDiff& d :
       DiffRows(baseline, baseline.collectives(), experimental,
                experimental.collectives(), threshold, per_step))
    *out.add_collectives() = std::move(d);

  const v1::DigestCommunication* runs[2] = {&baseline, &experimental};
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
