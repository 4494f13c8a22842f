// Parses a subcommand's arguments: `--name value`, `--name=value`, `--flag`,
// and positionals.
#ifndef PROFDIFF_CLIENT_COMMAND_LINE_H_
#define PROFDIFF_CLIENT_COMMAND_LINE_H_

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <absl/status/statusor.h>

namespace profdiff::client {

struct ParsedArgs {
  std::map<std::string, std::string> options;  // without the leading "--"
  std::vector<std::string> positionals;
  // Every value of an option given more than once, in order (options keeps
  // the last).
  std::map<std::string, std::vector<std::string>> repeats;

  std::string Get(const std::string& name, const std::string& fallback) const {
    auto it = options.find(name);
    return it == options.end() ? fallback : it->second;
  }
  // A list option: its values joined with ',', so "--view a --view b" is
  // "--view a,b".
  std::string GetList(const std::string& name,
                      const std::string& fallback) const;
};

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

// `valued` options take a value, `switches` take none; anything else starting
// with "--" is a UsageError naming it. "--" ends the options. Where "output"
// is valued, "-o FILE" is "--output FILE".
absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::set<std::string>& valued,
                                     const std::set<std::string>& switches);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_COMMAND_LINE_H_
