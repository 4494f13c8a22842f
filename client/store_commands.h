// The commands that only read the aggregator's RunStore:
//   profdiff runs [--server ADDR] [--filter TEXT] [--format table|json|csv]
//   profdiff export RUN --worker RANK|NAME [--span ID] [--server ADDR] -o FILE
#ifndef PROFDIFF_CLIENT_STORE_COMMANDS_H_
#define PROFDIFF_CLIENT_STORE_COMMANDS_H_

#include <string>
#include <vector>

#include <absl/status/statusor.h>

namespace profdiff::client {

// Each runs the command on its arguments (after the command name) and returns
// what it prints.
absl::StatusOr<std::string> RunRunsCommand(
    const std::vector<std::string>& args);
absl::StatusOr<std::string> RunExportCommand(
    const std::vector<std::string>& args);

std::string RunsUsage();
std::string ExportUsage();

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_STORE_COMMANDS_H_
