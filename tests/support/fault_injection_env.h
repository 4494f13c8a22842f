// An Env (base/env.h) wrapping another that forgets what was never made
// durable and fails calls on demand (like LevelDB's FaultInjectionTestEnv in
// db/fault_injection_test.cc): a test runs a store on it, "cuts the power" at
// any sync point, and opens the store again on what a real disk would hold, or
// fills the disk, all in-process.
//
// Design:
// 1. Every file written through it remembers its synced size; a file created,
//    renamed or removed remembers the folder syncs still owed (and what a
//    replaced or removed file held durably).
// 2. Crash() keeps exactly what was synced: files are cut back to their synced
//    size, and entries whose folder was not synced since are put back as they
//    were (a new file goes, a rename is undone, a removed file returns).
//    Approximations: a truncation is durable at once, and folders made are
//    never taken back (an empty folder is what a crash can leave anyway).
// 3. StopAfterSyncs(n): after n more syncs the "machine stops": that sync and
//    every later write fail (EIO) until Crash(), so a test can crash at each
//    sync point in turn.
// 4. Fail(kind, errno): calls of that kind fail with the errno's text, as the
//    POSIX Env words it ("<path>: write: No space left on device").
#ifndef PROFDIFF_TESTS_SUPPORT_FAULT_INJECTION_ENV_H_
#define PROFDIFF_TESTS_SUPPORT_FAULT_INJECTION_ENV_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>

#include "base/env.h"

namespace profdiff::test_support {

// The calls a fault can be injected into.
enum class FaultKind {
  kWrite,    // WritableFile::Append
  kSync,     // WritableFile::Sync (a delayed allocation failing at sync time)
  kCreate,   // new files and folders
  kRename,   // RenameFile
  kSyncDir,  // SyncDir
};

// Thread-safe: every mutating call is serialised with its bookkeeping (a test
// Env, where a consistent record matters more than throughput). The target
// must outlive it, and files opened from it must not outlive it.
//
// A file handle keys its bookkeeping by the path it was opened with: close it
// before renaming its file, and before Crash() (which forgets every synced
// size). A handle used after either no longer updates what survives a crash.
class FaultInjectionEnv final : public base::EnvWrapper {
 public:
  explicit FaultInjectionEnv(base::Env* target);
  ~FaultInjectionEnv() override;

  absl::StatusOr<std::unique_ptr<base::WritableFile>> NewWritableFile(
      const std::string& path) override ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<std::unique_ptr<base::WritableFile>> NewAppendableFile(
      const std::string& path) override ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status TruncateFile(const std::string& path,
                            uint64_t size_bytes) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status RenameFile(const std::string& from,
                          const std::string& to) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status RemoveFile(const std::string& path) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status CreateDir(const std::string& path) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status SyncDir(const std::string& path) override
      ABSL_LOCKS_EXCLUDED(mu_);

  // Every later call of `kind` on a path holding `path_part` (any path when
  // empty) fails with `error_number` until ClearFaults().
  void Fail(FaultKind kind, int error_number, std::string path_part = "")
      ABSL_LOCKS_EXCLUDED(mu_);
  // A full disk: appends and file syncs fail with ENOSPC (as the kernel says
  // it) until SetDiskFull(false). Creating, renaming and folder syncs still
  // work, as on a file system out of data blocks.
  void SetDiskFull(bool full) ABSL_LOCKS_EXCLUDED(mu_);
  void ClearFaults() ABSL_LOCKS_EXCLUDED(mu_);

  // Syncs (of files and folders) that succeeded since the start or the last
  // Crash().
  int syncs() const ABSL_LOCKS_EXCLUDED(mu_);
  // Lets `syncs` more syncs succeed, then stops (design note 3).
  void StopAfterSyncs(int syncs) ABSL_LOCKS_EXCLUDED(mu_);
  bool stopped() const ABSL_LOCKS_EXCLUDED(mu_);
  // A power cut (design note 2), then the disk works again (faults stay).
  // Errors come from the target only.
  absl::Status Crash() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  class File;

  // A namespace change not yet durable.
  struct Pending {
    enum class Kind { kCreated, kRenamed, kRemoved } kind;
    std::string path;  // the entry now (kRenamed: the new name)
    std::string from;  // kRenamed: the old name
    // What the replaced (kRenamed) or removed (kRemoved) file held durably.
    std::optional<std::string> saved;
    std::set<std::string> unsynced_dirs;  // durable once this is empty
  };

  // The error a call of `kind` on `path` gets now (stopped, or injected), or
  // OK.
  absl::Status Refusal(FaultKind kind, const std::string& path,
                       std::string_view call) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Counts a sync, or stops at the end of the budget (StopAfterSyncs).
  absl::Status TakeSync(const std::string& path, std::string_view call)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What `path` would hold after a crash now, nullopt when there is no file.
  std::optional<std::string> DurableBytes(const std::string& path)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<std::unique_ptr<base::WritableFile>> Open(
      const std::string& path, bool truncate) ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status WriteTarget(const std::string& path, const std::string& bytes)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  struct Fault {
    int error_number = 0;
    std::string path_part;
  };

  mutable absl::Mutex mu_;
  std::map<FaultKind, Fault> faults_ ABSL_GUARDED_BY(mu_);
  // Synced size of each file written through this Env; a file not here is
  // durable as it is.
  std::map<std::string, uint64_t> synced_bytes_ ABSL_GUARDED_BY(mu_);
  std::vector<Pending> pending_ ABSL_GUARDED_BY(mu_);
  int syncs_ ABSL_GUARDED_BY(mu_) = 0;
  int sync_budget_ ABSL_GUARDED_BY(mu_) = -1;  // -1: no limit
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace profdiff::test_support

#endif  // PROFDIFF_TESTS_SUPPORT_FAULT_INJECTION_ENV_H_
