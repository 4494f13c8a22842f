// `profdiff show PATH... [--view V] [--group-by name|shape] [--format F]
// [--top N] [--sort C] [--filter REGEX]`: one run's profile.
#ifndef PROFDIFF_CLIENT_SHOW_COMMAND_H_
#define PROFDIFF_CLIENT_SHOW_COMMAND_H_

#include <cstdio>
#include <string>
#include <vector>

#include <absl/status/statusor.h>

namespace profdiff::client {

// Runs the command on its arguments (after "show") and returns what it prints.
// With `stream` (the CLI's stdout), JSON bound for standard output is written
// to it as it is made instead, and the text returned is empty.
absl::StatusOr<std::string> RunShowCommand(const std::vector<std::string>& args,
                                           std::FILE* stream = nullptr);

// The usage text of `show`.
std::string ShowUsage();

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_SHOW_COMMAND_H_
