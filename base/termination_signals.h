// How the server binaries stop: SIGINT/SIGTERM taken by sigwait on the main
// thread, never by an asynchronous handler (which could not call Shutdown
// safely).
#ifndef PROFDIFF_BASE_TERMINATION_SIGNALS_H_
#define PROFDIFF_BASE_TERMINATION_SIGNALS_H_

#include <signal.h>

#include <optional>
#include <string>

#include <absl/functional/function_ref.h>
#include <absl/time/time.h>

namespace profdiff::base {

class TerminationSignals {
 public:
  // Blocks SIGINT and SIGTERM in this thread. Construct before any thread
  // starts, so every thread inherits the mask and Wait is the only receiver.
  TerminationSignals();
  // Waits for one of them; returns its number.
  int Wait() const;
  // Waits up to `timeout` for one of them: its number, or nullopt when none
  // came (a command-line poll's interval that a Ctrl-C ends early).
  std::optional<int> WaitFor(absl::Duration timeout) const;

  // The rest of a server binary's life once it serves on `port`: writes the
  // port file (when `port_file` is set), waits for a signal, logs it, calls
  // `shutdown`. Returns the exit code: 0, or 1 (said on stderr as "<program>:
  // error: ...") when the port file cannot be written.
  int ServeUntilSignal(const char* program, int port,
                       const std::string& port_file,
                       absl::FunctionRef<void()> shutdown) const;

 private:
  sigset_t signals_;
};

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_TERMINATION_SIGNALS_H_
