// Exponential backoff with full jitter for reconnecting to the aggregator: the
// n-th wait is drawn uniformly from [0, min(max_delay, initial_delay *
// multiplier^n)], so agents that lost the same aggregator do not come back in
// lockstep (AWS Architecture Blog, "Exponential Backoff And Jitter").
#ifndef PROFDIFF_AGENT_BACKOFF_H_
#define PROFDIFF_AGENT_BACKOFF_H_

#include <absl/random/bit_gen_ref.h>
#include <absl/time/time.h>

#include "rpc/channel.h"

namespace profdiff::agent {

struct BackoffOptions {
  absl::Duration initial_delay =
      absl::Milliseconds(100);                   // ceiling of the first wait
  absl::Duration max_delay = absl::Seconds(10);  // ceilings stop growing here
  double multiplier = 2.0;  // ceiling growth per attempt, >= 1
};

// gRPC's own reconnect backoff for a channel its owner retries with `options`:
// the same first delay and cap, so the channel is ready when the owner's next
// attempt comes.
rpc::ReconnectBackoff ReconnectBackoffOf(const BackoffOptions& options);

// The waits of one series of retries. Not thread-safe; one per upload.
class Backoff {
 public:
  explicit Backoff(const BackoffOptions& options);

  // The ceiling of the next wait: initial_delay * multiplier^attempts(), capped
  // at max_delay.
  absl::Duration NextCeiling() const;

  // A wait drawn uniformly from [0, NextCeiling()] with `gen`; counts one
  // attempt. Deterministic for a deterministic `gen`.
  absl::Duration NextDelay(absl::BitGenRef gen);

  // Starts over from initial_delay (after progress was made).
  void Reset() { attempts_ = 0; }

  // Waits handed out since construction or the last Reset().
  int attempts() const { return attempts_; }

 private:
  BackoffOptions options_;
  int attempts_ = 0;
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_BACKOFF_H_
