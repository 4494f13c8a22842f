#include "base/termination_signals.h"

#include <pthread.h>


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

}  // namespace profdiff::base
