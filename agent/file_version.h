// What identifies one version of a file on disk: its size and modification
// time. A trace file whose version changed is a different span (AgentFileState
// keeps the version it uploaded).
#ifndef PROFDIFF_AGENT_FILE_VERSION_H_
#define PROFDIFF_AGENT_FILE_VERSION_H_

#include <cstdint>
#include <string>

#include <absl/status/statusor.h>

namespace profdiff::agent {

// Size and mtime (nanoseconds since the epoch) of a regular file.
struct FileVersion {
  int64_t size_bytes = 0;
  int64_t mtime_ns = 0;

  friend bool operator==(const FileVersion&, const FileVersion&) = default;
};

// The version of the regular file at `path` (symlinks followed). NotFound when
// it does not exist, FailedPrecondition when it is not a regular file, the
// errno's code otherwise; every message names the path.
absl::StatusOr<FileVersion> StatFileVersion(const std::string& path);

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_FILE_VERSION_H_
