#include "analysis/moments.h"

namespace profdiff::analysis {

void AddSample(double x, v1::Moments& into) {
  const int64_t n = into.count() + 1;
  const double delta = x - into.mean();
  const double mean = into.mean() + delta / static_cast<double>(n);
  into.set_count(n);
  into.set_mean(mean);
  into.set_m2(into.m2() + delta * (x - mean));
}

void MergeMoments(const v1::Moments& other, v1::Moments& into) {
  if (other.count() == 0) return;
  if (into.count() == 0) {
    into = other;
    return;
  }
  const double na = static_cast<double>(into.count());
  const double nb = static_cast<double>(other.count());
  const double n = na + nb;
  const double delta = other.mean() - into.mean();
  into.set_mean(into.mean() + delta * nb / n);
  into.set_m2(into.m2() + other.m2() + delta * delta * na * nb / n);
  into.set_count(into.count() + other.count());
}

void AddZeros(int64_t zeros, v1::Moments& into) {
  if (zeros <= 0) return;
  v1::Moments z;
  z.set_count(zeros);
  MergeMoments(z, into);
}

double SampleVariance(const v1::Moments& m) {
  return m.count() < 2 ? 0 : m.m2() / static_cast<double>(m.count() - 1);
}

}  // namespace profdiff::analysis
