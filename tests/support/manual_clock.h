// A clock that moves only when a test moves it, so a test reaches a deadline
// at once instead of sleeping until it passes.
#ifndef PROFDIFF_TESTS_SUPPORT_MANUAL_CLOCK_H_
#define PROFDIFF_TESTS_SUPPORT_MANUAL_CLOCK_H_

#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

#include "base/clock.h"

namespace profdiff::test_support {

// Thread-safe.
class ManualClock final : public base::Clock {
 public:
  explicit ManualClock(absl::Time start) : now_(start) {}

  absl::Time Now() override ABSL_LOCKS_EXCLUDED(mu_);
  // Moves the clock on by `by` (>= 0).
  void Advance(absl::Duration by) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  absl::Mutex mu_;
  absl::Time now_ ABSL_GUARDED_BY(mu_);
};

}  // namespace profdiff::test_support

#endif  // PROFDIFF_TESTS_SUPPORT_MANUAL_CLOCK_H_
