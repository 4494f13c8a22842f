// `profdiff diff BASELINE EXPERIMENTAL [options]`: reads both sides (trace
// files or run folders) in parallel, builds their profiles and runs the differ
// in-process.
#ifndef PROFDIFF_CLIENT_DIFF_COMMAND_H_
#define PROFDIFF_CLIENT_DIFF_COMMAND_H_

#include <cstdio>
#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include "profdiff/v1/diff.pb.h"

namespace profdiff::client {

std::string DiffUsage();

// The command's output (table, JSON or CSV), or an error naming the bad option
// or input. With `stream` (the CLI's stdout), a JSON report of two runs bound
// for standard output is written to it as it is made instead, and the text
// returned is empty.
absl::StatusOr<std::string> RunDiffCommand(const std::vector<std::string>& args,
                                           std::FILE* stream = nullptr);

// Parses "0,2,5-7" (ranks or steps).
absl::StatusOr<std::vector<int64_t>> ParseNumberList(const std::string& flag,
                                                     const std::string& text);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_DIFF_COMMAND_H_
