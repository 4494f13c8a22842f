// A subcommand's command line: its flags parsed by base::FlagSet in the CLI's
// spelling, and how an error becomes an exit code and a message.
#ifndef PROFDIFF_CLIENT_COMMAND_LINE_H_
#define PROFDIFF_CLIENT_COMMAND_LINE_H_

#include <string>
#include <string_view>
#include <vector>

#include <absl/status/statusor.h>

#include "analysis/worker_profile.h"
#include "base/command_line.h"

namespace profdiff::client {

// A bad command line: InvalidArgument marked so the CLI exits 2 and prints the
// command's usage after the message.
absl::Status UsageError(std::string_view message);

// The exit code of a command a signal (Ctrl-C) ended, as a shell reports it.
inline constexpr int kExitInterrupted = 130;

// How `profdiff` exits on `status` (README "Exit codes"): 2 for a bad command
// line (UsageError, or InvalidArgument naming a flag: "--sort speed: ...",
// "-o x.html with --format json: ...", wherever it was found, the server
// included) and for a server that could not be reached in time; 130
// (kExitInterrupted) for Cancelled, a wait Ctrl-C ended; 3 for a failed
// `diff --fail-on` gate (GateFailedError); 1 for everything else (a missing
// or damaged file, a run the server does not have).
int ExitCodeOf(const absl::Status& status);
// Whether the command's usage follows the message (UsageError only: a bad
// flag value names the flag and what it takes).
bool WantsUsage(const absl::Status& status);

// A FlagSet that spells errors as the CLI always has ("--top x: expected a
// number >= 0", "unknown option --bogus").
base::FlagSet CommandFlags();

// Parses a subcommand's `args` with `flags` (made by CommandFlags, every flag
// registered). An unknown option or a missing value is a UsageError; a value
// that breaks its flag's rule the FlagSet's InvalidArgument, which names both.
absl::StatusOr<base::ParsedCommandLine> ParseCommandLine(
    base::FlagSet& flags, const std::vector<std::string>& args);

// --group-by name|shape and --kernels-by name|op, bound to `*options`, which
// must outlive `flags`' use: the rows of show's and diff's tables.
void AddGroupingFlags(base::FlagSet& flags, analysis::ProfileOptions* options);

// A list flag's values joined with ',': "--view a --view b" is "a,b", as
// "--view a,b" is; `fallback` when none was given.
std::string JoinedList(const std::vector<std::string>& values,
                       std::string_view fallback);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_COMMAND_LINE_H_
