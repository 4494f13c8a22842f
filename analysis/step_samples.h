// Per-step samples of a row or node: a short vector kept in step order, one
// entry per step where the row ran (a handful of steps, so a scan from the back
// beats a map).
#ifndef PROFDIFF_ANALYSIS_STEP_SAMPLES_H_
#define PROFDIFF_ANALYSIS_STEP_SAMPLES_H_

#include <cstdint>
#include <vector>

namespace profdiff::analysis {

// The sample of `step` in `samples` (sorted by step), inserted zeroed when
// missing.
template <typename Sample>
Sample& SampleOfStep(std::vector<Sample>& samples, int32_t step) {
  auto it = samples.end();
  while (it != samples.begin() && (it - 1)->step >= step) --it;
  if (it != samples.end() && it->step == step) return *it;
  Sample sample{};
  sample.step = step;
  return *samples.insert(it, sample);
}

}  // namespace profdiff::analysis

#endif  // PROFDIFF_ANALYSIS_STEP_SAMPLES_H_
