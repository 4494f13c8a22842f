// `profdiff show PATH... [--view V] [--group-by name|shape] [--format F]
// [--top N] [--sort C] [--filter REGEX]`: one run's profile.
#ifndef PROFDIFF_CLIENT_SHOW_COMMAND_H_
#define PROFDIFF_CLIENT_SHOW_COMMAND_H_

#include <string>
#include <vector>

#include <absl/status/statusor.h>

namespace profdiff::client {

// Runs the command on its arguments (after "show") and returns what it prints.
absl::StatusOr<std::string> RunShowCommand(
    const std::vector<std::string>& args);

// The usage text of `show`.
std::string ShowUsage();

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_SHOW_COMMAND_H_
