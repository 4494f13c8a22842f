#include "base/clock.h"

#include <absl/time/clock.h>

namespace profdiff::base {
namespace {

class RealClock final : public Clock {
 public:
  absl::Time Now() override { return absl::Now(); }
};

}  // namespace

Clock* Clock::Real() {
  // Stateless: nothing to tear down, whoever still holds it at exit.
  static RealClock clock;
  return &clock;
}

}  // namespace profdiff::base
