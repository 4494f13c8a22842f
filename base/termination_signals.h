// How the server binaries stop: SIGINT/SIGTERM taken by sigwait on the main thread, never by an
// asynchronous handler (which could not call Shutdown safely).
#ifndef PROFDIFF_BASE_TERMINATION_SIGNALS_H_
#define PROFDIFF_BASE_TERMINATION_SIGNALS_H_

#include <signal.h>

namespace profdiff::base {

class TerminationSignals {
 public:
  // Blocks SIGINT and SIGTERM in this thread. Construct before any thread starts, so every
  // thread inherits the mask and Wait is the only receiver.
  TerminationSignals();
  // Waits for one of them; returns its number.
  int Wait() const;

 private:
  sigset_t signals_;
};

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_TERMINATION_SIGNALS_H_
