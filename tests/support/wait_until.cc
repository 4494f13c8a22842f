#include "tests/support/wait_until.h"

#include <algorithm>

#include <absl/time/clock.h>

namespace profdiff::test_support {

bool WaitUntil(const std::function<bool()>& condition, absl::Duration timeout) {
  constexpr absl::Duration kLongestPause = absl::Milliseconds(50);
  const absl::Time deadline = absl::Now() + timeout;
  absl::Duration pause = absl::Milliseconds(1);
  for (;;) {
    if (condition()) return true;
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return false;
    absl::SleepFor(std::min(pause, left));
    pause = std::min(pause * 2, kLongestPause);
  }
}

}  // namespace profdiff::test_support
