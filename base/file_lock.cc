#include "base/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include <absl/strings/ascii.h>

#include "base/str_cat.h"

namespace profdiff::base {
namespace {

// What the holder wrote into the lock file: its pid, or "" when unreadable.
std::string HolderPid(int fd) {
  char text[32] = {};
  const ssize_t read = ::pread(fd, text, sizeof(text) - 1, 0);
  if (read <= 0) return "";
  return std::string(absl::StripAsciiWhitespace(
      absl::string_view(text, static_cast<size_t>(read))));
}

}  // namespace

absl::StatusOr<FileLock> FileLock::Acquire(const std::string& path) {
  ScopedFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    return absl::UnavailableError(
        StrCat(path, ": cannot open the lock file: ", std::strerror(errno)));
  }
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      return absl::UnavailableError(
          StrCat(path, ": flock: ", std::strerror(errno)));
    }
    const std::string holder = HolderPid(fd.get());
    return absl::FailedPreconditionError(
        StrCat(path, ": locked by another process (pid ",
               holder.empty() ? "unknown" : holder,
               "): one process at a time may use this folder"));
  }
  // Ours now: say who holds it. A failed write only makes a rival's message
  // less precise.
  const std::string pid = StrCat(::getpid(), "\n");
  if (::ftruncate(fd.get(), 0) == 0) {
    [[maybe_unused]] const ssize_t written =
        ::pwrite(fd.get(), pid.data(), pid.size(), 0);
  }
  return FileLock(std::move(fd), path);
}

}  // namespace profdiff::base
