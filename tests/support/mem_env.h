// An Env (base/env.h) whose files and folders live in memory and whose clock
// moves only when a test says so (like LevelDB's helpers/memenv): store tests
// run without touching the disk, and deadlines pass at once.
#ifndef PROFDIFF_TESTS_SUPPORT_MEM_ENV_H_
#define PROFDIFF_TESTS_SUPPORT_MEM_ENV_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

#include "base/env.h"
#include "tests/support/manual_clock.h"

namespace profdiff::test_support {

// Paths are taken literally ("/a/b", no "..", no "//"); "/" and "." exist from
// the start. Errors read as the POSIX Env's do (base::IoError, the same call
// names and errno texts). Files opened from it must not outlive it.
// Thread-safe.
class MemEnv final : public base::Env {
 public:
  // The clock (clock()) starts at kStart.
  static constexpr absl::Time kStart = absl::FromUnixSeconds(1'767'225'600);

  MemEnv();
  ~MemEnv() override;

  absl::StatusOr<std::unique_ptr<base::WritableFile>> NewWritableFile(
      const std::string& path) override ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<std::unique_ptr<base::WritableFile>> NewAppendableFile(
      const std::string& path) override ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<std::unique_ptr<base::RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status ReadFileInto(const std::string& path, uint64_t max_bytes,
                            std::string& out) override ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<uint64_t> FileSize(const std::string& path) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status TruncateFile(const std::string& path,
                            uint64_t size_bytes) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status RenameFile(const std::string& from,
                          const std::string& to) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status RemoveFile(const std::string& path) override
      ABSL_LOCKS_EXCLUDED(mu_);
  bool FileExists(const std::string& path) override ABSL_LOCKS_EXCLUDED(mu_);
  bool IsDirectory(const std::string& path) override ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status CreateDir(const std::string& path) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status SyncDir(const std::string& path) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<std::vector<base::DirEntry>> ListDir(
      const std::string& path) override ABSL_LOCKS_EXCLUDED(mu_);
  // One holder at a time in this Env; a second gets FailedPrecondition worded
  // as base::FileLock's.
  absl::StatusOr<std::unique_ptr<base::FileLockHandle>> LockFile(
      const std::string& path) override ABSL_LOCKS_EXCLUDED(mu_);
  absl::Time Now() override;

  // The clock Now() reads; it moves only when advanced.
  ManualClock& clock() { return clock_; }

  // A file's bytes, shared by every open of it (as an inode is).
  struct FileData {
    std::string bytes;  // guarded by the Env's mutex
  };

 private:
  class File;
  class Reader;
  class Lock;

  // ENOENT when `path`'s folder is missing, EISDIR when `path` is a folder, 0
  // when a file may be made there.
  int CheckNewFile(const std::string& path) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::unique_ptr<base::WritableFile>> OpenForWrite(
      const std::string& path, bool truncate) ABSL_LOCKS_EXCLUDED(mu_);

  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<FileData>> files_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> dirs_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> locked_ ABSL_GUARDED_BY(mu_);
  ManualClock clock_{kStart};
};

}  // namespace profdiff::test_support

#endif  // PROFDIFF_TESTS_SUPPORT_MEM_ENV_H_
