// The commands over the agents connected to the aggregator:
//   profdiff capture --job JOB|--all [--steps N|--duration D] [--run RUN]
//                    [--start-at-step K] [--timeout D] [--diff-against RUN]
//   profdiff capture --wait CAPTURE
//   profdiff agents [--format table|json]
// docs/on-demand-capture.md has the whole flow.
#ifndef PROFDIFF_CLIENT_CAPTURE_COMMANDS_H_
#define PROFDIFF_CLIENT_CAPTURE_COMMANDS_H_

#include <ostream>
#include <string>
#include <vector>

#include <absl/status/statusor.h>

namespace profdiff::client {

// Starts a capture (or follows one with --wait), writes its progress to
// `progress` as it changes, and returns the run id once the capture is
// COMPLETE (followed by the diff with --diff-against). A PARTIAL or FAILED
// capture is an error naming the run, the missing ranks or the reason.
absl::StatusOr<std::string> RunCaptureCommand(
    const std::vector<std::string>& args, std::ostream& progress);
// The same, with progress on stderr.
absl::StatusOr<std::string> RunCaptureCommand(
    const std::vector<std::string>& args);
absl::StatusOr<std::string> RunAgentsCommand(
    const std::vector<std::string>& args);

std::string CaptureUsage();
std::string AgentsUsage();

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_CAPTURE_COMMANDS_H_
