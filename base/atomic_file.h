// Durable whole-file writes and folders: a file replaced atomically (temp file,
// fsync, rename, fsync of the folder), and folders made so that they survive a
// crash. Each comes in two forms: through an Env (base/env.h), and on the real
// file system (Env::Default()).
#ifndef PROFDIFF_BASE_ATOMIC_FILE_H_
#define PROFDIFF_BASE_ATOMIC_FILE_H_

#include <string>
#include <string_view>

#include <absl/status/status.h>

#include "base/env.h"

namespace profdiff::base {

// Replaces the file at `path` with `bytes` so that after a crash it holds
// either the old or the new content, never a mix: writes `path`.tmp.<pid>.<n>,
// fsyncs it, renames it over `path` and fsyncs the folder. Errors (Unavailable,
// naming the path and the failing call) leave `path` as it was.
absl::Status WriteFileAtomically(Env& env, const std::string& path,
                                 std::string_view bytes);
absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view bytes);

// Creates `path` and its missing parents, fsyncing each folder that gained an
// entry.
absl::Status CreateDirectoriesDurably(Env& env, const std::string& path);
absl::Status CreateDirectoriesDurably(const std::string& path);

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_ATOMIC_FILE_H_
