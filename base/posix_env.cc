// Env::Default(): the POSIX file system and the real clock. Every system call
// the durable stores make is here, each error naming the path, the call and
// the errno's text.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <absl/time/clock.h>

#include "base/env.h"
#include "base/file_lock.h"
#include "base/file_reader.h"
#include "base/scoped_fd.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::base {
namespace {

absl::Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return IoError(path, "write", errno);
    }
    bytes.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

// Which sync a file gets: a whole file written anew is fsync'ed (its size and
// times with it), appends only need fdatasync.
enum class SyncCall { kFsync, kFdatasync };

class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(ScopedFd fd, std::string path, uint64_t size_bytes,
                    SyncCall sync)
      : fd_(std::move(fd)),
        path_(std::move(path)),
        size_bytes_(size_bytes),
        sync_(sync) {}

  absl::Status Append(std::string_view bytes) override {
    if (absl::Status status = WriteAll(fd_.get(), bytes, path_); !status.ok()) {
      // Cut a partial write off, so the next append does not follow torn
      // bytes.
      if (absl::Status cut = Truncate(size_bytes_); !cut.ok())
        return Annotate(status, ToStd(cut.message()));
      return status;
    }
    size_bytes_ += bytes.size();
    return absl::OkStatus();
  }

  absl::Status Sync() override {
    if (sync_ == SyncCall::kFsync) {
      if (::fsync(fd_.get()) != 0) return IoError(path_, "fsync", errno);
    } else if (::fdatasync(fd_.get()) != 0) {
      return IoError(path_, "fdatasync", errno);
    }
    return absl::OkStatus();
  }

  absl::Status Truncate(uint64_t size_bytes) override {
    if (::ftruncate(fd_.get(), static_cast<off_t>(size_bytes)) != 0)
      return IoError(path_, "ftruncate", errno);
    size_bytes_ = size_bytes;
    return absl::OkStatus();
  }

  uint64_t size_bytes() const override { return size_bytes_; }
  const std::string& path() const override { return path_; }

 private:
  static std::string_view ToStd(absl::string_view view) {
    return {view.data(), view.size()};
  }

  ScopedFd fd_;
  std::string path_;
  uint64_t size_bytes_;
  SyncCall sync_;
};

class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  PosixRandomAccessFile(ScopedFd fd, std::string path)
      : fd_(std::move(fd)), path_(std::move(path)) {}

  absl::StatusOr<size_t> Read(uint64_t offset, size_t size,
                              char* out) const override {
    size_t done = 0;
    while (done < size) {
      const ssize_t got = ::pread(fd_.get(), out + done, size - done,
                                  static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return IoError(path_, "pread", errno);
      if (got == 0) break;
      done += static_cast<size_t>(got);
    }
    return done;
  }

 private:
  ScopedFd fd_;
  std::string path_;
};

class PosixLock final : public FileLockHandle {
 public:
  explicit PosixLock(FileLock lock) : lock_(std::move(lock)) {}

 private:
  FileLock lock_;
};

// Closes a folder ListDir opened, on every return.
struct DirCloser {
  void operator()(DIR* dir) const { ::closedir(dir); }
};

class PosixEnv final : public Env {
 public:
  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override {
    ScopedFd fd(
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd.valid()) return IoError(path, "open", errno);
    return std::make_unique<PosixWritableFile>(std::move(fd), path, 0,
                                               SyncCall::kFsync);
  }

  absl::StatusOr<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) override {
    ScopedFd fd(
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    if (!fd.valid()) return IoError(path, "open", errno);
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) return IoError(path, "fstat", errno);
    return std::make_unique<PosixWritableFile>(
        std::move(fd), path, static_cast<uint64_t>(st.st_size),
        SyncCall::kFdatasync);
  }

  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) return IoError(path, "open", errno);
    return std::make_unique<PosixRandomAccessFile>(std::move(fd), path);
  }

  absl::Status ReadFileInto(const std::string& path, uint64_t max_bytes,
                            std::string& out) override {
    PD_ASSIGN_OR_RETURN(
        const uint64_t read,
        ReadFileWith(path, max_bytes,
                     [&](uint64_t size) -> absl::StatusOr<char*> {
                       out.resize(size);
                       return out.data();
                     }));
    out.resize(read);
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> FileSize(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return IoError(path, "stat", errno);
    return static_cast<uint64_t>(st.st_size);
  }

  absl::Status TruncateFile(const std::string& path,
                            uint64_t size_bytes) override {
    if (::truncate(path.c_str(), static_cast<off_t>(size_bytes)) != 0)
      return IoError(path, StrCat("truncate to ", size_bytes, " bytes"), errno);
    return absl::OkStatus();
  }

  absl::Status RenameFile(const std::string& from,
                          const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0)
      return IoError(from, "rename", errno);
    return absl::OkStatus();
  }

  absl::Status RemoveFile(const std::string& path) override {
    if (::unlink(path.c_str()) == 0) return absl::OkStatus();
    if (errno == ENOENT)
      return absl::NotFoundError(
          StrCat(path, ": unlink: ", std::strerror(errno)));
    return IoError(path, "unlink", errno);
  }

  bool FileExists(const std::string& path) override {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
  }

  bool IsDirectory(const std::string& path) override {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  }

  absl::Status CreateDir(const std::string& path) override {
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
      return IoError(path, "mkdir", errno);
    return absl::OkStatus();
  }

  absl::Status SyncDir(const std::string& path) override {
    const ScopedFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.valid()) return IoError(path, "open folder", errno);
    if (::fsync(fd.get()) != 0) return IoError(path, "fsync folder", errno);
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<DirEntry>> ListDir(
      const std::string& path) override {
    const std::unique_ptr<DIR, DirCloser> dir(::opendir(path.c_str()));
    if (dir == nullptr) return IoError(path, "opendir", errno);
    std::vector<DirEntry> entries;
    for (;;) {
      // readdir reports an error only through errno, and the stat calls below
      // set it too (a dangling link): clear it before each call.
      errno = 0;
      const struct dirent* entry = ::readdir(dir.get());
      if (entry == nullptr) {
        if (errno != 0) return IoError(path, "readdir", errno);
        return entries;
      }
      const std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      DirEntry listed{name, entry->d_type == DT_DIR, entry->d_type == DT_LNK};
      if (entry->d_type == DT_UNKNOWN || entry->d_type == DT_LNK) {
        const std::string full = StrCat(path, "/", name);
        struct stat st;
        if (entry->d_type == DT_UNKNOWN && ::lstat(full.c_str(), &st) == 0)
          listed.is_symlink = S_ISLNK(st.st_mode);
        listed.is_directory = IsDirectory(full);
      }
      entries.push_back(std::move(listed));
    }
  }

  absl::StatusOr<std::unique_ptr<FileLockHandle>> LockFile(
      const std::string& path) override {
    absl::StatusOr<FileLock> lock = FileLock::Acquire(path);
    if (!lock.ok()) return lock.status();
    return std::make_unique<PosixLock>(*std::move(lock));
  }

  absl::Time Now() override { return absl::Now(); }
};

}  // namespace

Env* Env::Default() {
  // Stateless: nothing to tear down, whoever still holds it at exit.
  static PosixEnv env;
  return &env;
}

}  // namespace profdiff::base
