// An exclusive, advisory lock on a file (flock), held for an object's life: one
// process at a time may own a folder such as the aggregator's --data-dir. The
// kernel drops the lock whenever the process ends, however it ends, so a crash
// never leaves a folder locked.
#ifndef PROFDIFF_BASE_FILE_LOCK_H_
#define PROFDIFF_BASE_FILE_LOCK_H_

#include <string>

#include <absl/status/statusor.h>

#include "base/scoped_fd.h"

namespace profdiff::base {

class FileLock {
 public:
  // Creates `path` when missing, takes the lock without waiting and writes this
  // process's pid into the file, so a second process can say who holds it.
  // FailedPrecondition when another open of the file holds the lock (in this
  // process or another), naming the file and the holder's pid; Unavailable
  // (with errno) when the file cannot be opened.
  static absl::StatusOr<FileLock> Acquire(const std::string& path);

  FileLock(FileLock&&) noexcept = default;
  FileLock& operator=(FileLock&&) noexcept = default;
  // Releases the lock (by closing the file).
  ~FileLock() = default;

  const std::string& path() const { return path_; }

 private:
  FileLock(ScopedFd fd, std::string path)
      : fd_(std::move(fd)), path_(std::move(path)) {}

  ScopedFd fd_;
  std::string path_;
};

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_FILE_LOCK_H_
