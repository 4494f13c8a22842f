// The commands over the agents connected to the aggregator:
//   profdiff capture --job JOB|--all [--steps N|--duration D] [--run RUN]
//                    [--start-at-step K] [--timeout D] [--diff-against RUN]
//   profdiff capture --wait CAPTURE
//   profdiff capture --cancel CAPTURE
//   profdiff agents [--format table|json]
// docs/on-demand-capture.md has the whole flow.
#ifndef PROFDIFF_CLIENT_CAPTURE_COMMANDS_H_
#define PROFDIFF_CLIENT_CAPTURE_COMMANDS_H_

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include "base/termination_signals.h"

namespace profdiff::client {

// Where a waiting capture hears of Ctrl-C and asks whether to cancel.
struct CaptureTerminal {
  // SIGINT/SIGTERM while following; null: not listened for.
  const base::TerminationSignals* signals = nullptr;
  std::istream* answers = nullptr;  // the y/N answer; null: no question asked
};

// Starts a capture (or follows one with --wait, or cancels one with
// --cancel), writes its progress to `progress` as it changes, and returns the
// run id once the capture is COMPLETE (followed by the diff with
// --diff-against). A PARTIAL, FAILED or CANCELLED capture is an error naming
// the run, the missing ranks or the reason. A signal while following ends the
// wait: with `terminal.answers` the user is asked whether to cancel the
// capture; either way the error (Cancelled) says how to cancel it or that it
// was.
absl::StatusOr<std::string> RunCaptureCommand(
    const std::vector<std::string>& args, std::ostream& progress,
    const CaptureTerminal& terminal = {});
// The same for the command line: progress on stderr, Ctrl-C taken (signals
// blocked from here on, so call it before any thread starts), and the
// question asked when stdin and stderr are terminals.
absl::StatusOr<std::string> RunCaptureCommand(
    const std::vector<std::string>& args);
absl::StatusOr<std::string> RunAgentsCommand(
    const std::vector<std::string>& args);

std::string CaptureUsage();
std::string AgentsUsage();

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_CAPTURE_COMMANDS_H_
