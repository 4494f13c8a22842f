#include "base/termination_signals.h"

#include <pthread.h>

#include <cstdio>

#include "base/log.h"
#include "base/port_file.h"

namespace profdiff::base {

TerminationSignals::TerminationSignals() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
}

int TerminationSignals::ServeUntilSignal(
    const char* program, int port, const std::string& port_file,
    absl::FunctionRef<void()> shutdown) const {
  if (absl::Status status = WritePortFile(port_file, port); !status.ok()) {
    std::fprintf(stderr, "%s: error: %s\n", program, status.ToString().c_str());
    return 1;
  }
  PD_LOG(INFO, "shutting down signal=%d", Wait());
  shutdown();
  return 0;
}

int TerminationSignals::Wait() const {
  int signal = 0;
  sigwait(&signals_, &signal);
  return signal;
}

std::optional<int> TerminationSignals::WaitFor(absl::Duration timeout) const {
  const timespec wait = absl::ToTimespec(timeout);
  const int signal = sigtimedwait(&signals_, nullptr, &wait);
  if (signal < 0) return std::nullopt;  // EAGAIN: none came; EINTR alike
  return signal;
}

}  // namespace profdiff::base
