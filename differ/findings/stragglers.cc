#include "differ/findings/stragglers.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/str_cat.h"
#include "differ/communication_diff.h"
#include "differ/finding_evidence.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

// The other ranks' mean wait per step, both sides, and their wait rows.
struct OthersWait {
  double wait[2] = {0, 0};
  int ranks = 0;
  bool all_significant = true;
  std::vector<v1::FindingEvidence> evidence;
};

OthersWait OthersWaitFor(const v1::CommunicationDiff& c, int32_t rank) {
  OthersWait o;
  for (const v1::RankCommunicationDiff& r : c.ranks()) {
    if (r.rank() == rank) continue;
    o.wait[0] += r.baseline().wait_us();
    o.wait[1] += r.experimental().wait_us();
    o.all_significant = o.all_significant && r.wait_noise().significant();
    ++o.ranks;
    o.evidence.push_back(RankWaitEvidence(r));
  }
  if (o.ranks > 0) {
    o.wait[0] /= o.ranks;
    o.wait[1] /= o.ranks;
  }
  return o;
}

v1::Finding LastArrivalFinding(const FindingContext& c, std::string text,
                               OthersWait others) {
  if (others.ranks > 0) {
    text += base::StrCat("; the other ranks wait ", Duration(others.wait[0]),
                         " -> ", Duration(others.wait[1]), c.per_step(), " (",
                         ChangePercent(others.wait[0], others.wait[1]), ")");
  }
  text += ".";
  v1::Finding f = c.Make(v1::FINDING_KIND_STRAGGLER, std::move(text),
                         others.wait[1] - others.wait[0], true);
  f.clear_share_of_step_change();
  for (v1::FindingEvidence& e : others.evidence)
    *f.add_evidence() = std::move(e);
  return f;
}

}  // namespace

std::vector<v1::Finding> LastArrivalFindings(const FindingContext& context,
                                             bool named[2]) {
  std::vector<v1::Finding> out;
  if (context.in().communication == nullptr) return out;
  const v1::CommunicationDiff& c = *context.in().communication;
  const v1::StragglerVerdict* verdict[2] = {&c.baseline_straggler(),
                                            &c.experimental_straggler()};
  if (verdict[0]->found() && verdict[1]->found() &&
      verdict[0]->rank() == verdict[1]->rank()) {
    OthersWait others = OthersWaitFor(c, verdict[1]->rank());
    const double delta = others.wait[1] - others.wait[0];
    if (others.ranks == 0 || !others.all_significant ||
        std::abs(delta) < context.threshold().min_pct / 100 * others.wait[0])
      return out;
    out.push_back(LastArrivalFinding(
        context,
        base::StrCat("Rank ", verdict[1]->rank(),
                     " is the straggler in both runs, last to arrive at the "
                     "collectives (baseline ",
                     LastArrivalShare(*verdict[0]), "; experimental ",
                     LastArrivalShare(*verdict[1]), ")"),
        std::move(others)));
    named[0] = named[1] = true;
    return out;
  }
  for (int side : {1, 0}) {
    const v1::StragglerVerdict& s = *verdict[side];
    const v1::StragglerVerdict& o = *verdict[1 - side];
    if (!s.found() || (o.found() && o.rank() == s.rank())) continue;
    out.push_back(LastArrivalFinding(
        context,
        base::StrCat(side == 1 ? "Rank " : "Baseline rank ", s.rank(),
                     side == 1 ? " is the straggler in the experimental "
                                 "run: last to arrive at the collectives "
                               : " was the straggler and no longer is: "
                                 "last to arrive at the collectives ",
                     LastArrivalShare(s)),
        OthersWaitFor(c, s.rank())));
    named[side] = true;
  }
  return out;
}

std::vector<v1::Finding> SlowestComputeFindings(
    const FindingContext& c, const bool last_arrival_named[2]) {
  std::vector<v1::Finding> out;
  if (c.in().ranks == nullptr) return out;
  const v1::RankSteps* slowest[2] = {nullptr, nullptr};
  std::vector<double> others[2];
  for (const v1::RankSteps& r : *c.in().ranks) {
    const int side = r.side() == v1::RUN_SIDE_BASELINE ? 0 : 1;
    if (r.slowest_compute()) {
      slowest[side] = &r;
    } else {
      others[side].push_back(r.compute_us());
    }
  }
  for (int side : {1, 0}) {
    const v1::RankSteps* s = slowest[side];
    const v1::RankSteps* o = slowest[1 - side];
    if (s == nullptr || (o != nullptr && o->rank() == s->rank()) ||
        last_arrival_named[side])
      continue;
    std::vector<double>& v = others[side];
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    if (n + 1 < kMinRanksForSlowestCompute) continue;
    const double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    std::string text = base::StrCat(
        side == 1 ? "Rank " : "Baseline rank ", s->rank(),
        side == 1 ? " has the slowest compute in the experimental run: "
                  : " had the slowest compute and no longer does: ",
        Duration(s->compute_us()), " of compute", c.per_step(),
        " against a median of ", Duration(median), " on the other ranks (",
        ChangePercent(median, s->compute_us()), ").");
    v1::Finding f = c.Make(v1::FINDING_KIND_SLOWEST_COMPUTE, std::move(text),
                           s->compute_us() - median, true);
    f.clear_share_of_step_change();
    *f.add_evidence() = RankEvidence(*s);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace profdiff::differ
