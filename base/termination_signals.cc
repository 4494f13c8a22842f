#include "base/termination_signals.h"

#include <pthread.h>

#include "base/atomic_file.h"
#include "base/str_cat.h"

namespace profdiff::base {

TerminationSignals::TerminationSignals() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
}

int TerminationSignals::Wait() const {
  int signal = 0;
  sigwait(&signals_, &signal);
  return signal;
}

absl::Status WritePortFile(const std::string& path, int port) {
  if (path.empty()) return absl::OkStatus();
  return WriteFileAtomically(path, StrCat(port, "\n"));
}

}  // namespace profdiff::base
