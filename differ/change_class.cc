#include "differ/change_class.h"

#include <cmath>

namespace profdiff::differ {

std::string ChangeClass(bool in_baseline, bool in_experimental, double baseline,
                        double experimental, const v1::Noise& noise,
                        const ChangeThreshold& threshold) {
  if (!in_baseline && in_experimental) return "added";
  if (in_baseline && !in_experimental) return "deleted";
  const double delta = experimental - baseline;
  const bool moved =
      noise.has_interval()
          ? noise.significant()
          : delta != 0 && LargeEnough(delta, baseline, threshold);
  if (!moved) return "unchanged";
  return delta > 0 ? "increased" : "decreased";
}

}  // namespace profdiff::differ
