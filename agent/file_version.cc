#include "agent/file_version.h"

#include <sys/stat.h>

#include <cerrno>

#include <absl/status/status.h>

#include "base/str_cat.h"

namespace profdiff::agent {
namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;

}  // namespace

absl::StatusOr<FileVersion> StatFileVersion(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    const int error = errno;
    return absl::ErrnoToStatus(error, base::StrCat(path, ": stat"));
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::FailedPreconditionError(
        base::StrCat(path, ": expected a regular file"));
  }
  return FileVersion{
      .size_bytes = static_cast<int64_t>(info.st_size),
      .mtime_ns = static_cast<int64_t>(info.st_mtim.tv_sec) * kNanosPerSecond +
                  info.st_mtim.tv_nsec};
}

}  // namespace profdiff::agent
