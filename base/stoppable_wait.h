// Waiting that a stop request cuts short: the pause between retries must not
// delay shutdown (no sleeps).
#ifndef PROFDIFF_BASE_STOPPABLE_WAIT_H_
#define PROFDIFF_BASE_STOPPABLE_WAIT_H_

#include <stop_token>

#include <absl/time/time.h>

namespace profdiff::base {

// Waits `timeout` or until a stop is requested on `stop`, whichever comes
// first. Returns true when the whole timeout passed, false when stopped (also
// when the stop came before the call).
bool WaitUnlessStopped(const std::stop_token& stop, absl::Duration timeout);

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_STOPPABLE_WAIT_H_
