// Where every command's `-o PATH` goes: one writer, so `-` and devices behave
// the same for `diff`, `show` and `export`; and the format a path asks for
// (issue 45, item 3: `-o report.html` writes HTML).
#ifndef PROFDIFF_CLIENT_OUTPUT_FILE_H_
#define PROFDIFF_CLIENT_OUTPUT_FILE_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/status/statusor.h>

#include "base/command_line.h"

namespace profdiff::client {

// Registers "-o, --output FILE" bound to `*path` (which must outlive `flags`'
// use), with `help` saying what the command writes there.
void AddOutputFlag(base::FlagSet& flags, std::string* path,
                   std::string_view help);

// Whether `-o path` leaves the output on standard output: no path, or "-".
bool IsStandardOutput(const std::string& path);

// Writes `output` to `path` and returns what the command prints on stdout:
// - no path or "-": nothing is written; `output` itself is printed;
// - a symlink (/dev/stdout), device or FIFO: written in place through it (a
//   rename would replace the link); nothing more is printed;
// - a regular or new file: replaced atomically (a reader never sees half of
//   it); "wrote PATH (N bytes)" is printed.
// Errors name `-o PATH`.
absl::StatusOr<std::string> WriteOutput(const std::string& path,
                                        std::string output);

// Whether `-o path` names a folder: it ends in '/', or is an existing folder
// (a symlink to one included).
bool IsOutputFolder(const std::string& path);

// Writes each (name, bytes) of `files` as `folder`/name, creating the folder
// and its parents when missing, each file replaced atomically, and returns a
// "wrote FOLDER/NAME (N bytes)" line per file. Errors name `-o FOLDER` (and
// the file); files written before an error stay.
absl::StatusOr<std::string> WriteOutputFolder(
    const std::string& folder,
    const std::vector<std::pair<std::string, std::string>>& files);

// The format a command writes, from `--format` and `-o` together:
// - `format_flag` (empty when --format was not given) must be one of
//   `formats` (InvalidArgument "--format xml: expected table, json or csv");
// - a folder (IsOutputFolder) asks for csv, a file name ending in .html (or
//   .htm), .json or .csv (any case) for that format; any other path (none,
//   "-", report.txt) for `format_flag`, else `fallback`.
// InvalidArgument when the two disagree ("-o report.html with --format json:
// ..."), or when `command` has no format the path asks for ("-o x.html: show
// has no html format ...").
absl::StatusOr<std::string> ResolveOutputFormat(
    std::string_view command, const std::string& path,
    const std::string& format_flag, const std::vector<std::string>& formats,
    const std::string& fallback);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_OUTPUT_FILE_H_
