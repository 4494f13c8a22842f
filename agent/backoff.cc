#include "agent/backoff.h"

#include <algorithm>

#include <absl/random/distributions.h>

namespace profdiff::agent {

Backoff::Backoff(const BackoffOptions& options) : options_(options) {
  options_.multiplier = std::max(options_.multiplier, 1.0);
  options_.initial_delay =
      std::max(options_.initial_delay, absl::ZeroDuration());
  options_.max_delay = std::max(options_.max_delay, options_.initial_delay);
}

absl::Duration Backoff::NextCeiling() const {
  absl::Duration ceiling = options_.initial_delay;
  // Stops multiplying once capped, so many attempts never overflow.
  for (int i = 0; i < attempts_ && ceiling < options_.max_delay; ++i) {
    ceiling *= options_.multiplier;
  }
  return std::min(ceiling, options_.max_delay);
}

absl::Duration Backoff::NextDelay(absl::BitGenRef gen) {
  const absl::Duration ceiling = NextCeiling();
  ++attempts_;
  const int64_t ceiling_ns = absl::ToInt64Nanoseconds(ceiling);
  if (ceiling_ns <= 0) return absl::ZeroDuration();
  return absl::Nanoseconds(
      absl::Uniform<int64_t>(absl::IntervalClosedClosed, gen, 0, ceiling_ns));
}

rpc::ReconnectBackoff ReconnectBackoffOf(const BackoffOptions& options) {
  return {.initial = options.initial_delay, .max = options.max_delay};
}

}  // namespace profdiff::agent
