#include "agent/log_dir_watcher.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <system_error>
#include <utility>

#include "agent/absolute_folder.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "trace/trace_file_name.h"

namespace profdiff::agent {
namespace {

namespace fs = std::filesystem;

// What a watched folder reports: files appearing, growing, finishing, leaving;
// folders appearing (to watch them) and leaving (to forget them).
constexpr uint32_t kFolderEvents = IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE |
                                   IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM |
                                   IN_DELETE | IN_ONLYDIR | IN_DONT_FOLLOW;
// Folders deeper than this below the log dir are not watched: a symlink-free
// tree this deep is not a log dir, and the bound keeps recursion and watch
// counts in check.
constexpr int kMaxFolderDepth = 16;
// One read() of inotify events; each is 16 bytes plus a name of at most
// NAME_MAX + 1.
constexpr size_t kEventBufferBytes = 64 << 10;

std::string JoinPath(const std::string& dir, std::string_view name) {
  return base::StrCat(dir, "/", name);
}

// Whether `path` is `dir` or below it.
bool IsAtOrBelow(std::string_view path, std::string_view dir) {
  return path == dir || (path.starts_with(dir) && path.size() > dir.size() &&
                         path[dir.size()] == '/');
}

}  // namespace

absl::StatusOr<std::unique_ptr<LogDirWatcher>> LogDirWatcher::Start(
    const std::string& logdir, LogDirWatcherOptions options,
    LogDirWatcherCallbacks callbacks) {
  PD_ASSIGN_OR_RETURN(const std::string root, AbsoluteFolder(logdir));
  const fs::path dir(root);
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    return absl::ErrnoToStatus(
        error.value(),
        base::ToAbsl(base::StrCat(root, ": creating the log dir")));
  }
  if (!fs::is_directory(dir, error)) {
    return absl::FailedPreconditionError(
        base::StrCat(root, ": log dir is not a folder"));
  }
  base::ScopedFd inotify_fd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  if (!inotify_fd.valid()) {
    return absl::ErrnoToStatus(
        errno, base::ToAbsl(base::StrCat(root, ": inotify_init1")));
  }
  base::ScopedFd wake_fd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!wake_fd.valid())
    return absl::ErrnoToStatus(errno,
                               base::ToAbsl(base::StrCat(root, ": eventfd")));
  // The root must be watchable; folders below that are not are logged and
  // retried on rescans.
  if (::inotify_add_watch(inotify_fd.get(), root.c_str(), kFolderEvents) < 0) {
    return absl::ErrnoToStatus(
        errno, base::ToAbsl(base::StrCat(root, ": inotify_add_watch")));
  }
  auto watcher = std::make_unique<LogDirWatcher>(
      PrivateTag(), root, options, std::move(callbacks), std::move(inotify_fd),
      std::move(wake_fd));
  // Before the thread starts, so that anything created after Start() returns is
  // seen.
  watcher->AddTree(root, 0);
  watcher->thread_ = std::jthread(
      [w = watcher.get()](const std::stop_token& stop) { w->Run(stop); });
  return watcher;
}

LogDirWatcher::LogDirWatcher(PrivateTag, std::string logdir,
                             LogDirWatcherOptions options,
                             LogDirWatcherCallbacks callbacks,
                             base::ScopedFd inotify_fd, base::ScopedFd wake_fd)
    : logdir_(std::move(logdir)),
      options_(options),
      callbacks_(std::move(callbacks)),
      inotify_fd_(std::move(inotify_fd)),
      wake_fd_(std::move(wake_fd)),
      reader_(options_.reader_limits) {}

LogDirWatcher::~LogDirWatcher() { Stop(); }

void LogDirWatcher::Stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  const uint64_t one = 1;
  // An eventfd write of 8 bytes cannot be short; a full counter is already
  // readable.
  [[maybe_unused]] const ssize_t written =
      ::write(wake_fd_.get(), &one, sizeof(one));
  thread_.join();
}

void LogDirWatcher::Run(const std::stop_token& stop) {
  absl::Time next_rescan = absl::Now() + options_.rescan_interval;
  while (!stop.stop_requested()) {
    const absl::Time next_due = ProcessDue(stop);
    if (stop.stop_requested()) break;
    const absl::Duration wait = std::min(next_due, next_rescan) - absl::Now();
    int timeout_ms = -1;
    if (wait != absl::InfiniteDuration()) {
      // Rounded up, so a candidate due in 0.3 ms is not polled for in a busy
      // loop.
      timeout_ms = static_cast<int>(std::clamp<int64_t>(
          absl::ToInt64Milliseconds(absl::Ceil(wait, absl::Milliseconds(1))), 0,
          INT_MAX));
    }
    pollfd fds[2] = {{inotify_fd_.get(), POLLIN, 0},
                     {wake_fd_.get(), POLLIN, 0}};
    const int ready = ::poll(fds, 2, timeout_ms);
    if (ready < 0 && errno != EINTR) {
      PD_LOG(ERROR, "log dir watch ended dir=%s error=poll: %s", logdir_,
             std::error_code(errno, std::generic_category()).message());
      return;
    }
    if (ready > 0 && (fds[1].revents & POLLIN) != 0) break;  // Stop()
    if (ready > 0 && (fds[0].revents & POLLIN) != 0) DrainEvents();
    if (absl::Now() >= next_rescan) {
      if (callbacks_.paths_to_retry) {
        for (const std::string& path : callbacks_.paths_to_retry()) {
          handled_.erase(path);
          Observe(path);
        }
      }
      Rescan();
      next_rescan = absl::Now() + options_.rescan_interval;
    }
  }
}

void LogDirWatcher::AddTree(const std::string& dir, int depth) {
  const int wd =
      ::inotify_add_watch(inotify_fd_.get(), dir.c_str(), kFolderEvents);
  if (wd < 0) {
    const int error = errno;
    if (error == ENOENT || error == ENOTDIR)
      return;  // gone again before we got to it
    ++watch_failures_;
    if (std::has_single_bit(static_cast<uint64_t>(watch_failures_))) {
      PD_LOG(WARNING,
             "cannot watch folder dir=%s error=%s failures=%d (files there are "
             "found on rescans)",
             dir, std::error_code(error, std::generic_category()).message(),
             watch_failures_);
    }
  } else {
    watched_dirs_[wd] = dir;
  }
  std::error_code error;
  fs::directory_iterator it(dir, error);
  for (; !error && it != fs::directory_iterator(); it.increment(error)) {
    const fs::file_status status = it->symlink_status(error);
    if (error) {
      error.clear();
      continue;
    }
    const std::string path = it->path().string();
    if (fs::is_directory(status)) {
      if (depth < kMaxFolderDepth) AddTree(path, depth + 1);
    } else if (fs::is_regular_file(status) &&
               trace::IsTraceFileName(it->path().filename().string())) {
      Observe(path);
    }
  }
}

void LogDirWatcher::Rescan() { AddTree(logdir_, 0); }

void LogDirWatcher::DrainEvents() {
  alignas(inotify_event) char buffer[kEventBufferBytes];
  bool overflow = false;
  for (;;) {
    const ssize_t length = ::read(inotify_fd_.get(), buffer, sizeof(buffer));
    if (length <= 0) break;  // EAGAIN: drained (the fd is non-blocking)
    for (ssize_t offset = 0; offset < length;) {
      const auto* event =
          reinterpret_cast<const inotify_event*>(buffer + offset);
      offset += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      if ((event->mask & IN_Q_OVERFLOW) != 0) {
        overflow = true;
        continue;
      }
      if ((event->mask & IN_IGNORED) != 0) {
        watched_dirs_.erase(event->wd);
        continue;
      }
      const auto dir = watched_dirs_.find(event->wd);
      if (dir == watched_dirs_.end() || event->len == 0) continue;
      const std::string_view name(event->name);
      const std::string path = JoinPath(dir->second, name);
      if ((event->mask & IN_ISDIR) != 0) {
        if ((event->mask & (IN_CREATE | IN_MOVED_TO)) != 0) {
          const fs::path relative = fs::path(path).lexically_relative(logdir_);
          const int depth =
              static_cast<int>(std::distance(relative.begin(), relative.end()));
          if (depth <= kMaxFolderDepth) AddTree(path, depth);
        } else if ((event->mask & (IN_MOVED_FROM | IN_DELETE)) != 0) {
          // Watches below a folder moved away would report under its old path:
          // drop them.
          for (auto it = watched_dirs_.begin(); it != watched_dirs_.end();) {
            if (IsAtOrBelow(it->second, path)) {
              ::inotify_rm_watch(inotify_fd_.get(), it->first);
              watched_dirs_.erase(it++);
            } else {
              ++it;
            }
          }
          absl::erase_if(candidates_, [&](const auto& entry) {
            return IsAtOrBelow(entry.first, path);
          });
          absl::erase_if(handled_, [&](const auto& entry) {
            return IsAtOrBelow(entry.first, path);
          });
        }
        continue;
      }
      if (!trace::IsTraceFileName(name)) continue;
      if ((event->mask & (IN_DELETE | IN_MOVED_FROM)) != 0) {
        Forget(path);
      } else {
        Observe(path);
      }
    }
  }
  if (overflow) {
    PD_LOG(WARNING, "inotify queue overflowed dir=%s; rescanning", logdir_);
    Rescan();
  }
}

void LogDirWatcher::Observe(const std::string& path) {
  const absl::StatusOr<FileVersion> version = StatFileVersion(path);
  if (!version.ok()) {
    candidates_.erase(path);
    return;
  }
  const auto handled = handled_.find(path);
  if (handled != handled_.end() && handled->second == *version) return;
  auto [it, inserted] = candidates_.try_emplace(path);
  if (!inserted && it->second.version == *version) return;
  it->second = Candidate{.version = *version, .seen_at = absl::Now()};
}

void LogDirWatcher::Forget(const std::string& path) {
  candidates_.erase(path);
  handled_.erase(path);
}

absl::Time LogDirWatcher::DueTime(const Candidate& candidate) const {
  return candidate.seen_at +
         (candidate.read_failed ? options_.give_up_after : options_.settle);
}

absl::Time LogDirWatcher::ProcessDue(const std::stop_token& stop) {
  const absl::Time now = absl::Now();
  std::vector<std::pair<absl::Time, std::string>> due;
  for (const auto& [path, candidate] : candidates_) {
    const absl::Time at = DueTime(candidate);
    if (at <= now) due.emplace_back(at, path);
  }
  // Oldest first: files are handed over in the order they became complete.
  std::sort(due.begin(), due.end());
  for (const auto& [at, path] : due) {
    if (stop.stop_requested()) break;
    auto it = candidates_.find(path);
    if (it == candidates_.end()) continue;
    const absl::StatusOr<FileVersion> version = StatFileVersion(path);
    if (!version.ok()) {
      candidates_.erase(it);
      continue;
    }
    if (*version !=
        it->second.version) {  // changed since last seen: settle again
      it->second = Candidate{.version = *version, .seen_at = absl::Now()};
      continue;
    }
    if (it->second.read_failed) {
      // Unchanged and unreadable for give_up_after: the writer is not coming
      // back.
      const absl::Status error = it->second.read_error;
      candidates_.erase(it);
      handled_[path] = *version;
      if (callbacks_.on_failed) callbacks_.on_failed(path, *version, error);
      continue;
    }
    if (callbacks_.should_read && !callbacks_.should_read(path, *version)) {
      candidates_.erase(path);
      handled_[path] = *version;
      continue;
    }
    absl::StatusOr<trace::Trace> trace = reader_.ReadFile(path);
    // A file that changed while it was read may have been read half-written:
    // read it again once it settles, whatever this read said.
    const absl::StatusOr<FileVersion> after = StatFileVersion(path);
    it = candidates_.find(path);
    if (it == candidates_.end()) continue;
    if (!after.ok()) {
      candidates_.erase(it);
      continue;
    }
    if (*after != *version) {
      it->second = Candidate{.version = *after, .seen_at = absl::Now()};
      continue;
    }
    if (!trace.ok()) {
      PD_VLOG(1, "trace file not readable yet path=%s error=%s", path,
              trace.status().message());
      it->second.read_failed = true;
      it->second.read_error = trace.status();
      continue;
    }
    candidates_.erase(it);
    handled_[path] = *version;
    ReadyTraceFile file{
        .path = path, .version = *version, .trace = *std::move(trace)};
    if (callbacks_.on_ready) callbacks_.on_ready(stop, file);
  }
  absl::Time next = absl::InfiniteFuture();
  for (const auto& [path, candidate] : candidates_)
    next = std::min(next, DueTime(candidate));
  return next;
}

}  // namespace profdiff::agent
