// The change class of an operator or kernel row (v1::Change: added, deleted,
// increased, decreased, unchanged).
//
// With per-step samples on both sides a row is increased/decreased only when
// its change is significant (noise.h); with a single step a side, when it moved
// past the same thresholds.
#ifndef PROFDIFF_DIFFER_CHANGE_CLASS_H_
#define PROFDIFF_DIFFER_CHANGE_CLASS_H_

#include "differ/noise.h"
#include "profdiff/v1/diff.pb.h"

namespace profdiff::differ {

v1::Change ChangeClass(bool in_baseline, bool in_experimental, double baseline,
                       double experimental, const v1::Noise& noise,
                       const ChangeThreshold& threshold);

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_CHANGE_CLASS_H_
