// Waiting that a stop request cuts short: the pause between retries must not
// delay shutdown (STYLE.md §10: no sleeps).
#ifndef PROFDIFF_AGENT_STOPPABLE_WAIT_H_
#define PROFDIFF_AGENT_STOPPABLE_WAIT_H_

#include <stop_token>

#include <absl/time/time.h>

namespace profdiff::agent {

// Waits `timeout` or until a stop is requested on `stop`, whichever comes
// first. Returns true when the whole timeout passed, false when stopped (also
// when the stop came before the call).
bool WaitUnlessStopped(const std::stop_token& stop, absl::Duration timeout);

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_STOPPABLE_WAIT_H_
