// How sure a delta is (docs/semantics.md §8: "every delta carries its noise"):
// the per-step samples of each side give a mean and a spread, and Welch's t
// gives a 95% interval of the difference of the means. A change is significant
// when that interval excludes 0 and it is large enough to matter: at least
// `min_pct` of the baseline and at least `min_abs` (per step), so steady
// sub-percent jitter and microsecond-sized nodes are not flagged.
#ifndef PROFDIFF_DIFFER_NOISE_H_
#define PROFDIFF_DIFFER_NOISE_H_

#include <vector>

#include <absl/status/statusor.h>

#include "profdiff/v1/diff.pb.h"
#include "profdiff/v1/digest.pb.h"

namespace profdiff::differ {

inline constexpr double kDefaultMinChangePct = 5.0;

// The two-sided 95% quantile of Student's t with `df` degrees of freedom (df >=
// 1; fractional df interpolated in 1/df, exact to 3 decimals at the tabulated
// points).
double StudentT975(double df);

// The practical thresholds of a diff.
struct ChangeThreshold {
  double min_pct = kDefaultMinChangePct;
  double min_abs = 0;
};

// The thresholds `options` ask for (--min-change, --min-change-us), with
// `default_min_abs` where --min-change-us is unset; InvalidArgument for a
// negative one.
absl::StatusOr<ChangeThreshold> ChangeThresholdOf(
    const v1::DiffOptions& options, double default_min_abs);

// Whether a change of `delta` from `baseline` is large enough to matter.
bool LargeEnough(double delta, double baseline,
                 const ChangeThreshold& threshold);

// Welch's comparison of experimental `b` against baseline `a`, given the
// samples' moments (analysis/moments.h).
v1::Noise CompareMoments(const v1::Moments& a, const v1::Moments& b,
                         const ChangeThreshold& threshold);
// The same of the samples themselves.
v1::Noise CompareSamples(const std::vector<double>& a,
                         const std::vector<double>& b,
                         const ChangeThreshold& threshold);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_NOISE_H_
