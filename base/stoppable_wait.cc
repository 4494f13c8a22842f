#include "base/stoppable_wait.h"

#include <absl/synchronization/notification.h>

namespace profdiff::base {

bool WaitUnlessStopped(const std::stop_token& stop, absl::Duration timeout) {
  absl::Notification stopped;
  // Runs at once when the stop was already requested; otherwise from the
  // requesting thread.
  std::stop_callback notify_on_stop(stop, [&stopped] { stopped.Notify(); });
  return !stopped.WaitForNotificationWithTimeout(timeout);
}

}  // namespace profdiff::base
