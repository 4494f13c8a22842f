// The wall clock as an object, so code that reads it (deadlines, idle
// timeouts) can be handed a clock a test moves by hand instead of waiting.
#ifndef PROFDIFF_BASE_CLOCK_H_
#define PROFDIFF_BASE_CLOCK_H_

#include <absl/time/time.h>

namespace profdiff::base {

// Thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;

  virtual absl::Time Now() = 0;

  // absl::Now(). Lives for the process.
  static Clock* Real();
};

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_CLOCK_H_
