// Durable file writes: a whole file replaced atomically (temp file, fsync,
// rename, fsync of the folder), and an append-only file whose appends are made
// durable on demand.
#ifndef PROFDIFF_BASE_ATOMIC_FILE_H_
#define PROFDIFF_BASE_ATOMIC_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include "base/scoped_fd.h"

namespace profdiff::base {

// Replaces the file at `path` with `bytes` so that after a crash it holds
// either the old or the new content, never a mix: writes `path`.tmp.<pid>.<n>,
// fsyncs it, renames it over `path` and fsyncs the folder. Errors (Unavailable,
// naming the path and the failing call) leave `path` as it was.
absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view bytes);

// fsyncs the folder at `path`, so entries created or renamed in it survive a
// crash.
absl::Status SyncDirectory(const std::string& path);

// Creates `path` and its missing parents, fsyncing each folder that gained an
// entry.
absl::Status CreateDirectoriesDurably(const std::string& path);

// A file opened for appending. Appended bytes are durable once Sync() returns
// OK. Move-only (its descriptor closes with it). Not thread-safe.
class AppendOnlyFile {
 public:
  // Opens (creating when missing) `path` for appending. Unavailable on failure.
  static absl::StatusOr<AppendOnlyFile> Open(const std::string& path);

  // Writes all of `bytes` at the end of the file; on failure the file is cut
  // back to its size before the call.
  absl::Status Append(std::string_view bytes);
  // fdatasync: everything appended so far is on disk.
  absl::Status Sync();
  // Cuts the file back to `size_bytes` (<= size_bytes()), e.g. when an append's
  // Sync failed.
  absl::Status CutBackTo(uint64_t size_bytes);

  uint64_t size_bytes() const { return size_bytes_; }
  const std::string& path() const { return path_; }

 private:
  AppendOnlyFile(ScopedFd fd, std::string path, uint64_t size_bytes)
      : fd_(std::move(fd)), path_(std::move(path)), size_bytes_(size_bytes) {}

  ScopedFd fd_;
  std::string path_;
  uint64_t size_bytes_ = 0;
};

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_ATOMIC_FILE_H_
