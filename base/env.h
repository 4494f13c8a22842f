// The file system and clock the durable stores work through (like LevelDB's
// include/leveldb/env.h): the real one is Env::Default(); tests substitute an
// in-memory one or one that drops unsynced data and fails writes on demand
// (tests/support/), so crash and disk-full cases run in-process.
//
// Design:
// 1. Only what the stores use: files appended, synced, cut, read at offsets or
//    whole; renames, removals, folders made, synced and listed; a lock file;
//    the wall clock.
// 2. Errors name the path, the call and the errno's text ("<path>: fdatasync:
//    No space left on device"), whichever Env made them (IoError).
// 3. Durability is explicit: appended bytes are durable after
//    WritableFile::Sync, a new, renamed or removed entry after SyncDir of its
//    folder. Nothing else is promised, and the fault-injecting Env holds code
//    to exactly that.
#ifndef PROFDIFF_BASE_ENV_H_
#define PROFDIFF_BASE_ENV_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "base/clock.h"

namespace profdiff::base {

// A file opened for writing at its end. Not thread-safe; move it between
// threads, do not share it.
class WritableFile {
 public:
  virtual ~WritableFile() = default;

  // Writes all of `bytes` at the end; on failure the file is cut back to its
  // size before the call, so no torn bytes stay.
  virtual absl::Status Append(std::string_view bytes) = 0;
  // Makes everything appended so far durable (POSIX: fsync for a file from
  // NewWritableFile, fdatasync for an appendable one; errors name that call).
  virtual absl::Status Sync() = 0;
  // Cuts the file to `size_bytes` (<= size_bytes()).
  virtual absl::Status Truncate(uint64_t size_bytes) = 0;

  virtual uint64_t size_bytes() const = 0;
  virtual const std::string& path() const = 0;
};

// A file read at offsets. Thread-compatible (reads do not move a position).
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;

  // Reads up to `size` bytes at `offset` into `out`; returns how many (fewer
  // only at the file's end, 0 past it).
  virtual absl::StatusOr<size_t> Read(uint64_t offset, size_t size,
                                      char* out) const = 0;
};

// A held lock file; released when destroyed.
class FileLockHandle {
 public:
  virtual ~FileLockHandle() = default;
};

// One entry of a folder.
struct DirEntry {
  std::string name;
  // Follows a symbolic link: a link to a folder is a folder.
  bool is_directory = false;
  // The entry itself is a symbolic link, so a walk can keep off what it points
  // to (outside the tree, or a loop).
  bool is_symlink = false;
};

// Every method is thread-safe. Paths are the caller's ("<dir>/<name>"), never
// resolved against anything but the process's working folder. Now() (Clock) is
// the wall clock the stores stamp and time out with.
class Env : public Clock {
 public:
  ~Env() override = default;

  // The real file system and clock (POSIX). Lives for the process.
  static Env* Default();

  // Creates `path` (emptying it when it exists) for writing.
  virtual absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) = 0;
  // Opens `path` for appending after what it holds, creating it when missing.
  virtual absl::StatusOr<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) = 0;
  virtual absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) = 0;
  // Replaces `out` with the file's bytes (capacity kept). NotFound (no such
  // file), InvalidArgument (a folder, no permission), ResourceExhausted (over
  // `max_bytes`), Unavailable otherwise; each names the path.
  virtual absl::Status ReadFileInto(const std::string& path, uint64_t max_bytes,
                                    std::string& out) = 0;
  virtual absl::StatusOr<uint64_t> FileSize(const std::string& path) = 0;
  virtual absl::Status TruncateFile(const std::string& path,
                                    uint64_t size_bytes) = 0;
  // Renames `from` to `to`, replacing `to` when it exists.
  virtual absl::Status RenameFile(const std::string& from,
                                  const std::string& to) = 0;
  // NotFound when there is no such file.
  virtual absl::Status RemoveFile(const std::string& path) = 0;
  virtual bool FileExists(const std::string& path) = 0;

  virtual bool IsDirectory(const std::string& path) = 0;
  // Creates the folder `path` (its parent must exist); OK when it exists.
  virtual absl::Status CreateDir(const std::string& path) = 0;
  // fsyncs the folder, so entries created, renamed or removed in it are
  // durable.
  virtual absl::Status SyncDir(const std::string& path) = 0;
  // The entries of a folder, in no particular order.
  virtual absl::StatusOr<std::vector<DirEntry>> ListDir(
      const std::string& path) = 0;

  // Creates `path` when missing and locks it without waiting: one holder at a
  // time, in this process or any other. FailedPrecondition naming the file and
  // the holder's pid when held; Unavailable when it cannot be opened.
  virtual absl::StatusOr<std::unique_ptr<FileLockHandle>> LockFile(
      const std::string& path) = 0;
};

// Forwards every call to `target` (not owned; must outlive the wrapper), so an
// Env that changes a few calls overrides only those. Like LevelDB's
// EnvWrapper.
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env* target) : target_(target) {}

  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override;
  absl::StatusOr<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) override;
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override;
  absl::Status ReadFileInto(const std::string& path, uint64_t max_bytes,
                            std::string& out) override;
  absl::StatusOr<uint64_t> FileSize(const std::string& path) override;
  absl::Status TruncateFile(const std::string& path,
                            uint64_t size_bytes) override;
  absl::Status RenameFile(const std::string& from,
                          const std::string& to) override;
  absl::Status RemoveFile(const std::string& path) override;
  bool FileExists(const std::string& path) override;
  bool IsDirectory(const std::string& path) override;
  absl::Status CreateDir(const std::string& path) override;
  absl::Status SyncDir(const std::string& path) override;
  absl::StatusOr<std::vector<DirEntry>> ListDir(
      const std::string& path) override;
  absl::StatusOr<std::unique_ptr<FileLockHandle>> LockFile(
      const std::string& path) override;
  absl::Time Now() override;

  Env* target() const { return target_; }

 private:
  Env* const target_;
};

// The error every Env returns for a failed call on `path`: Unavailable,
// "<path>: <call>: <strerror(error_number)>".
absl::Status IoError(std::string_view path, std::string_view call,
                     int error_number);

// The folder holding `path` ("." for a bare name).
std::string ParentDir(const std::string& path);

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_ENV_H_
