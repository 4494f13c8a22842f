#include "differ/findings/uniform_change.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <absl/strings/str_format.h>

#include "base/str_cat.h"
#include "differ/finding_evidence.h"
#include "differ/sentence_parts.h"

namespace profdiff::differ {
namespace {

// An operator's own time, both halves: a machine that is slower makes the
// host and the device parts slower alike.
double OwnTime(const v1::OperatorValues& v) {
  return v.host_self_us() + v.device_self_us();
}

struct Factor {
  double ratio;
  double weight;  // its baseline time
  const v1::OperatorDiff* row;
};

// The time-weighted median of `factors` (sorted by ratio).
double WeightedMedian(const std::vector<Factor>& factors, double total) {
  double seen = 0;
  for (const Factor& f : factors) {
    seen += f.weight;
    if (seen >= total / 2) return f.ratio;
  }
  return factors.back().ratio;
}

std::string Times(double factor) { return absl::StrFormat("%.2fx", factor); }

// "1.25x the time" or "0.04x the time (27x faster)": a factor well under 1
// reads better as a speed-up.
std::string TimeFactor(double factor) {
  std::string out = Times(factor) + " the time";
  if (factor > 0 && factor < 0.5)
    out += absl::StrFormat(" (%.3gx faster)", 1 / factor);
  return out;
}

}  // namespace

std::optional<v1::Finding> UniformChangeFinding(const FindingContext& c) {
  const std::vector<v1::OperatorDiff>* rows = c.in().operators;
  if (rows == nullptr || c.step() == nullptr) return std::nullopt;
  double total[2] = {0, 0};
  double one_sided[2] = {0, 0};
  std::vector<const v1::OperatorDiff*> matched;
  for (const v1::OperatorDiff& row : *rows) {
    const double a = row.baseline().calls(), b = row.experimental().calls();
    // Other calls are other code, however little time they hold.
    if (a > 0 && b > 0 && std::abs(b - a) >= kUniformCallsMoved &&
        std::abs(b - a) > kUniformCallsShare * std::max(a, b)) {
      return std::nullopt;
    }
    const double t[2] = {OwnTime(row.baseline()), OwnTime(row.experimental())};
    total[0] += t[0];
    total[1] += t[1];
    if (t[0] <= 0 || t[1] <= 0) {
      one_sided[0] += t[0];
      one_sided[1] += t[1];
      continue;
    }
    matched.push_back(&row);
  }
  if (total[0] <= 0 || total[1] <= 0 ||
      one_sided[0] >= kUniformOneSidedShare * total[0] ||
      one_sided[1] >= kUniformOneSidedShare * total[1]) {
    return std::nullopt;
  }
  std::stable_sort(matched.begin(), matched.end(),
                   [](const v1::OperatorDiff* x, const v1::OperatorDiff* y) {
                     return OwnTime(x->baseline()) > OwnTime(y->baseline());
                   });
  std::vector<Factor> factors;
  double judged = 0;
  for (const v1::OperatorDiff* row : matched) {
    if (judged >= kUniformCoveredShare * total[0] &&
        static_cast<int>(factors.size()) >= kUniformMinOperators) {
      break;
    }
    const double a = row->baseline().calls(), b = row->experimental().calls();
    // Other calls are other code (here even by less than a call per step).
    if (std::abs(b - a) > kUniformCallsShare * std::max(a, b)) {
      return std::nullopt;
    }
    const double base = OwnTime(row->baseline());
    factors.push_back({OwnTime(row->experimental()) / base, base, row});
    judged += base;
  }
  if (static_cast<int>(factors.size()) < kUniformMinOperators) {
    return std::nullopt;
  }
  std::sort(factors.begin(), factors.end(),
            [](const Factor& x, const Factor& y) { return x.ratio < y.ratio; });
  const double median = WeightedMedian(factors, judged);
  if (std::abs(median - 1) * 100 < c.threshold().min_pct || !c.step_changed()) {
    return std::nullopt;
  }
  double agreeing = 0;
  double low = median, high = median;
  for (const Factor& f : factors) {
    if (std::abs(std::log(f.ratio / median)) > std::log(kUniformSpread)) {
      continue;
    }
    agreeing += f.weight;
    low = std::min(low, f.ratio);
    high = std::max(high, f.ratio);
  }
  if (agreeing < kUniformAgreeingShare * judged) return std::nullopt;
  FindingEvidenceList evidence;
  for (size_t i = 0; i < factors.size() && i < 3; ++i) {
    *evidence.Add() = OperatorEvidence(*factors[i].row, "", c.threshold());
  }
  *evidence.Add() = OverviewEvidence(*c.step(), c.threshold());
  const std::string text = base::StrCat(
      "Every operator is ", median > 1 ? "slower" : "faster",
      " by a similar factor, about ", TimeFactor(median),
      ": operators holding ", Share(agreeing / total[0]),
      " of the baseline's time changed by ", Times(low), " to ", Times(high),
      ", with the same calls. That is a "
      "machine or clock difference (another host, a busier one, other "
      "clocks), not a code change.");
  return c.Make(v1::FINDING_KIND_UNIFORM, text, c.step_delta(), true,
                std::move(evidence));
}

}  // namespace profdiff::differ
