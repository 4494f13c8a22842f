#include "agent/capture_folder.h"

#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <absl/status/status.h>
#include <absl/strings/escaping.h>

#include "agent/span_identity.h"
#include "base/str_cat.h"

namespace profdiff::agent {
namespace {

constexpr mode_t kSharedFolderMode = 0711;
constexpr mode_t kOwnFolderMode = 0700;
// Other users may create files (the process's trace) but not list the folder,
// and the sticky bit keeps anyone from removing or renaming another's file.
constexpr mode_t kOtherUserFolderMode = 01733;
constexpr size_t kRandomBytes = 8;

absl::Status ErrnoError(int error, std::string_view what,
                        std::string_view path) {
  return absl::ErrnoToStatus(error,
                             base::StrCat(what, " ", path, ": capture folder"));
}

// Design note 1: made if missing, else checked; an older agent's mode 1777 is
// taken back.
absl::Status EnsureSharedFolder(const std::string& path) {
  if (::mkdir(path.c_str(), kSharedFolderMode) != 0 && errno != EEXIST) {
    return ErrnoError(errno, "cannot make", path);
  }
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0) {
    return ErrnoError(errno, "cannot stat", path);
  }
  if (!S_ISDIR(info.st_mode) || info.st_uid != ::geteuid()) {
    return absl::FailedPreconditionError(base::StrCat(
        path, " is ", S_ISDIR(info.st_mode) ? "a folder" : "not a folder",
        " owned by uid ", info.st_uid, ", not by the agent (uid ", ::geteuid(),
        "): another user made it, so captures are not written there; remove "
        "it"));
  }
  if ((info.st_mode & 07777) != kSharedFolderMode &&
      ::chmod(path.c_str(), kSharedFolderMode) != 0) {
    return ErrnoError(errno, "cannot set the mode of", path);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> RandomHex() {
  uint8_t bytes[kRandomBytes];
  if (::getrandom(bytes, sizeof(bytes), 0) != sizeof(bytes)) {
    return absl::ErrnoToStatus(errno, "getrandom for a capture folder name");
  }
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(bytes), sizeof(bytes)));
}

}  // namespace

absl::StatusOr<std::string> MakeProcessCaptureFolder(
    std::string_view logdir, std::string_view run,
    const VerifiedProcess& process) {
  const std::string captures = base::StrCat(logdir, "/", kCaptureFolder);
  const std::string run_folder = base::StrCat(captures, "/", run);
  for (const std::string& shared : {captures, run_folder}) {
    if (absl::Status made = EnsureSharedFolder(shared); !made.ok()) {
      return made;
    }
  }
  absl::StatusOr<std::string> random = RandomHex();
  if (!random.ok()) return random.status();
  const std::string folder =
      base::StrCat(run_folder, "/", process.host_pid, "-", *random);
  if (::mkdir(folder.c_str(), kOwnFolderMode) != 0) {
    return ErrnoError(errno, "cannot make", folder);
  }
  if (process.uid != ::geteuid() &&
      ::chmod(folder.c_str(), kOtherUserFolderMode) != 0) {
    return ErrnoError(errno, "cannot set the mode of", folder);
  }
  return folder;
}

}  // namespace profdiff::agent
