#include "differ/change_class.h"

#include <cmath>

namespace profdiff::differ {

v1::Change ChangeClass(bool in_baseline, bool in_experimental, double baseline,
                       double experimental, const v1::Noise& noise,
                       const ChangeThreshold& threshold) {
  if (!in_baseline && in_experimental) return v1::CHANGE_ADDED;
  if (in_baseline && !in_experimental) return v1::CHANGE_DELETED;
  const double delta = experimental - baseline;
  const bool moved =
      noise.has_interval()
          ? noise.significant()
          : delta != 0 && LargeEnough(delta, baseline, threshold);
  if (!moved) return v1::CHANGE_UNCHANGED;
  return delta > 0 ? v1::CHANGE_INCREASED : v1::CHANGE_DECREASED;
}

}  // namespace profdiff::differ
