// Where every command's `-o PATH` goes: one writer, so `-` and devices behave
// the same for `diff`, `show` and `export`.
#ifndef PROFDIFF_CLIENT_OUTPUT_FILE_H_
#define PROFDIFF_CLIENT_OUTPUT_FILE_H_

#include <string>

#include <absl/status/statusor.h>

namespace profdiff::client {

// Writes `output` to `path` and returns what the command prints on stdout:
// - no path or "-": nothing is written; `output` itself is printed;
// - a symlink (/dev/stdout), device or FIFO: written in place through it (a
//   rename would replace the link); nothing more is printed;
// - a regular or new file: replaced atomically (a reader never sees half of
//   it); "wrote PATH (N bytes)" is printed.
// Errors name `-o PATH`.
absl::StatusOr<std::string> WriteOutput(const std::string& path,
                                        std::string output);

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_OUTPUT_FILE_H_
