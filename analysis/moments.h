// Mergeable statistics of a set of samples (v1::Moments: count, mean and the
// sum of squared deviations), so per-step samples reduced on a thousand
// workers, or in a store next to the data, give the differ's noise
// (differ/noise.h) without the samples themselves. Merging is Chan, Golub and
// LeVeque's pairwise update: exact in any grouping up to floating-point
// rounding, and stable where the textbook sum of squares is not.
#ifndef PROFDIFF_ANALYSIS_MOMENTS_H_
#define PROFDIFF_ANALYSIS_MOMENTS_H_

#include <cstdint>

#include "profdiff/v1/digest.pb.h"

namespace profdiff::analysis {

// Adds one sample (Welford's update).
void AddSample(double x, v1::Moments& into);
// Adds every sample `other` stands for.
void MergeMoments(const v1::Moments& other, v1::Moments& into);
// Adds `zeros` samples of value 0 (slots of workers that lack a row).
void AddZeros(int64_t zeros, v1::Moments& into);
// The sample variance (m2 / (count - 1)); 0 with fewer than two samples.
double SampleVariance(const v1::Moments& m);

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_MOMENTS_H_
