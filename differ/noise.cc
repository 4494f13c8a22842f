#include "differ/noise.h"

#include <array>
#include <cmath>
#include <utility>

#include "analysis/moments.h"

namespace profdiff::differ {
namespace {

// (df, t_0.975) from the standard table; the last row is the normal limit.
constexpr std::array<std::pair<double, double>, 34> kT975 = {{
    {1, 12.706}, {2, 4.303},  {3, 3.182},   {4, 2.776},     {5, 2.571},
    {6, 2.447},  {7, 2.365},  {8, 2.306},   {9, 2.262},     {10, 2.228},
    {11, 2.201}, {12, 2.179}, {13, 2.160},  {14, 2.145},    {15, 2.131},
    {16, 2.120}, {17, 2.110}, {18, 2.101},  {19, 2.093},    {20, 2.086},
    {21, 2.080}, {22, 2.074}, {23, 2.069},  {24, 2.064},    {25, 2.060},
    {26, 2.056}, {27, 2.052}, {28, 2.048},  {29, 2.045},    {30, 2.042},
    {40, 2.021}, {60, 2.000}, {120, 1.980}, {1e300, 1.960},
}};

}  // namespace

double StudentT975(double df) {
  if (!(df > 1)) return kT975.front().second;
  for (size_t i = 1; i < kT975.size(); ++i) {
    if (df <= kT975[i].first) {
      const auto [df0, t0] = kT975[i - 1];
      const auto [df1, t1] = kT975[i];
      // Linear in 1/df between table rows.
      const double w = (1 / df0 - 1 / df) / (1 / df0 - 1 / df1);
      return t0 + w * (t1 - t0);
    }
  }
  return kT975.back().second;
}

absl::StatusOr<ChangeThreshold> ChangeThresholdOf(
    const v1::DiffOptions& options, double default_min_abs) {
  ChangeThreshold threshold;
  threshold.min_pct = options.has_min_change_pct() ? options.min_change_pct()
                                                   : kDefaultMinChangePct;
  threshold.min_abs =
      options.has_min_change_us() ? options.min_change_us() : default_min_abs;
  if (threshold.min_pct < 0 || threshold.min_abs < 0) {
    return absl::InvalidArgumentError(
        "--min-change / --min-change-us: must be >= 0");
  }
  return threshold;
}

bool LargeEnough(double delta, double baseline,
                 const ChangeThreshold& threshold) {
  return std::abs(delta) >= threshold.min_pct / 100.0 * std::abs(baseline) &&
         std::abs(delta) >= threshold.min_abs;
}

v1::Noise CompareMoments(const v1::Moments& a, const v1::Moments& b,
                         const ChangeThreshold& threshold) {
  v1::Noise noise;
  noise.set_baseline_samples(static_cast<int32_t>(a.count()));
  noise.set_experimental_samples(static_cast<int32_t>(b.count()));
  const double var_a = analysis::SampleVariance(a);
  const double var_b = analysis::SampleVariance(b);
  noise.set_baseline_stddev(std::sqrt(var_a));
  noise.set_experimental_stddev(std::sqrt(var_b));
  if (a.count() < 2 || b.count() < 2) return noise;

  const double na = static_cast<double>(a.count());
  const double nb = static_cast<double>(b.count());
  const double delta = b.mean() - a.mean();
  const double va = var_a / na;
  const double vb = var_b / nb;
  const double se2 = va + vb;
  double half_width = 0;
  if (se2 > 0) {
    // Welch–Satterthwaite degrees of freedom.
    const double df = se2 * se2 / (va * va / (na - 1) + vb * vb / (nb - 1));
    half_width = StudentT975(df) * std::sqrt(se2);
  }
  noise.set_has_interval(true);
  noise.set_ci_low(delta - half_width);
  noise.set_ci_high(delta + half_width);
  const bool excludes_zero = noise.ci_low() > 0 || noise.ci_high() < 0;
  noise.set_significant(excludes_zero &&
                        LargeEnough(delta, a.mean(), threshold));
  return noise;
}

v1::Noise CompareSamples(const std::vector<double>& a,
                         const std::vector<double>& b,
                         const ChangeThreshold& threshold) {
  v1::Moments ma, mb;
  for (const double x : a) analysis::AddSample(x, ma);
  for (const double x : b) analysis::AddSample(x, mb);
  return CompareMoments(ma, mb, threshold);
}

}  // namespace profdiff::differ
