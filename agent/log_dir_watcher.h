// Watches a log folder (recursively, with inotify) for trace files and hands
// each one over once it is complete: its size and mtime stayed the same for
// `settle` and it reads without error.
//
// Design:
// 1. Start() watches DIR and every folder below it before returning, so a file
//    or folder created after Start() is seen; folders created later are watched
//    (and scanned, for files made before their watch existed) as they appear. A
//    kernel queue overflow, and a timer (`rescan_interval`, for file systems
//    such as NFS that report no remote writes), rescan the whole tree.
// 2. A candidate is a trace-named file ("*.json", "*.json.gz") with the version
//    (size, mtime) it had when last seen. Any change restarts its settle timer.
//    When settled, the watcher asks `should_read` (the agent's state says
//    whether this version was handled already) and reads it; a read that fails
//    waits for the next change, and a file unchanged for `give_up_after` that
//    still does not read is reported failed with the reader's error.
// 3. One thread, owned by the watcher, does everything (poll on the inotify fd
//    and an eventfd that Stop() signals; no sleeping), and runs the callbacks,
//    so files are handed over one at a time and at most one Trace read by the
//    watcher is alive. Callbacks may block (the agent uploads inside on_ready);
//    events meanwhile queue in the kernel.
#ifndef PROFDIFF_AGENT_LOG_DIR_WATCHER_H_
#define PROFDIFF_AGENT_LOG_DIR_WATCHER_H_

#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "agent/file_version.h"
#include "base/scoped_fd.h"
#include "trace/kineto_reader.h"
#include "trace/reader_limits.h"
#include "trace/trace.h"

namespace profdiff::agent {

struct LogDirWatcherOptions {
  absl::Duration settle =
      absl::Seconds(2);  // unchanged this long before a read
  absl::Duration give_up_after =
      absl::Seconds(60);  // unchanged and unreadable this long: failed
  absl::Duration rescan_interval =
      absl::Seconds(30);  // full rescan, for missed events
  trace::ReaderLimits reader_limits = {};
};

// A complete trace file, read.
struct ReadyTraceFile {
  std::string path;  // absolute
  FileVersion version;
  trace::Trace trace;
};

// What the watcher calls, always from its own thread, one call at a time.
struct LogDirWatcherCallbacks {
  // Whether to read `path` at `version` (false: it was handled before; the
  // watcher then ignores the file until it changes). Unset means always.
  std::function<bool(const std::string& path, const FileVersion& version)>
      should_read;
  // A complete file. The watcher's stop token lets a long callback end early on
  // Stop().
  std::function<void(const std::stop_token& stop, ReadyTraceFile& file)>
      on_ready;
  // Called before each timed rescan: paths handled before that should be
  // offered again (their handling said try later). Unset means none.
  std::function<std::vector<std::string>()> paths_to_retry;
  // A file that stayed unreadable for give_up_after; `error` is the reader's.
  std::function<void(const std::string& path, const FileVersion& version,
                     const absl::Status& error)>
      on_failed;
};

// The watch of one log folder. Create with Start(); Stop() or the destructor
// ends it.
class LogDirWatcher {
 public:
  // Watches `logdir` (made absolute; created when missing) and starts the
  // thread. Errors name the folder: the errno's code when inotify or the watch
  // cannot be set up (e.g. ResourceExhausted past fs.inotify.max_user_watches),
  // FailedPrecondition when it is not a folder.
  static absl::StatusOr<std::unique_ptr<LogDirWatcher>> Start(
      const std::string& logdir, LogDirWatcherOptions options,
      LogDirWatcherCallbacks callbacks);

  // Stops and joins the thread (Stop()).
  ~LogDirWatcher();
  LogDirWatcher(const LogDirWatcher&) = delete;
  LogDirWatcher& operator=(const LogDirWatcher&) = delete;

  // Requests a stop (a running callback sees it on its stop token), wakes the
  // thread and joins it. No callback runs after Stop() returns. Call from the
  // owner's thread, not a callback.
  void Stop();

  // The absolute folder watched.
  const std::string& logdir() const { return logdir_; }

  // Use Start(); public only so that Start can make_unique it (the tag is
  // private).
  struct PrivateTag {
    explicit PrivateTag() = default;
  };
  LogDirWatcher(PrivateTag, std::string logdir, LogDirWatcherOptions options,
                LogDirWatcherCallbacks callbacks, base::ScopedFd inotify_fd,
                base::ScopedFd wake_fd);

 private:
  // A trace file waiting to be complete.
  struct Candidate {
    FileVersion version;
    absl::Time seen_at;  // when `version` was first seen: the settle clock
    bool read_failed = false;  // `version` was read and did not parse
    absl::Status read_error = absl::OkStatus();
  };

  void Run(const std::stop_token& stop);
  // Watches `dir` and the folders below it, and observes the trace files in
  // them.
  void AddTree(const std::string& dir, int depth);
  void Rescan();
  void DrainEvents();
  void Observe(const std::string& path);
  void Forget(const std::string& path);
  // Reads or gives up on every candidate that is due; returns when the next one
  // will be.
  absl::Time ProcessDue(const std::stop_token& stop);
  absl::Time DueTime(const Candidate& candidate) const;

  const std::string logdir_;
  const LogDirWatcherOptions options_;
  const LogDirWatcherCallbacks callbacks_;
  const base::ScopedFd inotify_fd_;
  const base::ScopedFd
      wake_fd_;  // eventfd: Stop() makes it readable to end the poll

  // The rest belongs to the thread once it runs (Start fills it before starting
  // the thread).
  absl::flat_hash_map<int, std::string>
      watched_dirs_;  // watch descriptor -> folder
  absl::flat_hash_map<std::string, Candidate>
      candidates_;  // path -> waiting file
  absl::flat_hash_map<std::string, FileVersion>
      handled_;  // path -> version handed over
  trace::KinetoReader reader_;
  int64_t watch_failures_ =
      0;  // folders that could not be watched (summarised in the log)

  std::jthread
      thread_;  // last: started after everything above exists, joined first
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_LOG_DIR_WATCHER_H_
