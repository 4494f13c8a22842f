#include "tests/support/manual_clock.h"

namespace profdiff::test_support {

absl::Time ManualClock::Now() {
  absl::MutexLock lock(&mu_);
  return now_;
}

void ManualClock::Advance(absl::Duration by) {
  absl::MutexLock lock(&mu_);
  now_ += by;
}

}  // namespace profdiff::test_support
