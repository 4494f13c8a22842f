#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "base/scoped_fd.h"
#include "base/status_annotate.h"
#include "base/str_cat.h"

namespace profdiff::base {
namespace {

absl::Status ErrnoError(std::string_view call, const std::string& path) {
  return absl::UnavailableError(
      StrCat(path, ": ", call, ": ", std::strerror(errno)));
}

absl::Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("write", path);
    }
    bytes.remove_prefix(static_cast<size_t>(written));
  }
  return absl::OkStatus();
}

std::string ParentOf(const std::string& path) {
  std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

}  // namespace

absl::Status SyncDirectory(const std::string& path) {
  const ScopedFd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open folder", path);
  if (::fsync(fd.get()) != 0) return ErrnoError("fsync folder", path);
  return absl::OkStatus();
}

absl::Status CreateDirectoriesDurably(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return absl::OkStatus();
  const std::string parent = ParentOf(path);
  if (parent != path) {
    if (absl::Status status = CreateDirectoriesDurably(parent); !status.ok())
      return status;
  }
  if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
    return ErrnoError("mkdir", path);
  return SyncDirectory(parent);
}

absl::Status WriteFileAtomically(const std::string& path,
                                 std::string_view bytes) {
  // Unique per process and call, so two writers of one path never share a temp
  // file.
  static std::atomic<uint64_t> counter{0};
  const std::string temp = StrCat(path, ".tmp.", ::getpid(), ".", counter++);
  {
    const ScopedFd fd(
        ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd.valid()) return ErrnoError("open", temp);
    absl::Status status = WriteAll(fd.get(), bytes, temp);
    if (status.ok() && ::fsync(fd.get()) != 0)
      status = ErrnoError("fsync", temp);
    if (!status.ok()) {
      ::unlink(temp.c_str());
      return status;
    }
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    absl::Status status = ErrnoError("rename", temp);
    ::unlink(temp.c_str());
    return status;
  }
  return SyncDirectory(ParentOf(path));
}

absl::StatusOr<AppendOnlyFile> AppendOnlyFile::Open(const std::string& path) {
  ScopedFd fd(
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!fd.valid()) return ErrnoError("open", path);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ErrnoError("fstat", path);
  return AppendOnlyFile(std::move(fd), path, static_cast<uint64_t>(st.st_size));
}

absl::Status AppendOnlyFile::Append(std::string_view bytes) {
  if (absl::Status status = WriteAll(fd_.get(), bytes, path_); !status.ok()) {
    // Cut a partial write off, so the next append does not follow torn bytes.
    if (absl::Status cut = CutBackTo(size_bytes_); !cut.ok()) {
      return Annotate(
          status, std::string_view(cut.message().data(), cut.message().size()));
    }
    return status;
  }
  size_bytes_ += bytes.size();
  return absl::OkStatus();
}

absl::Status AppendOnlyFile::CutBackTo(uint64_t size_bytes) {
  if (::ftruncate(fd_.get(), static_cast<off_t>(size_bytes)) != 0)
    return ErrnoError("ftruncate", path_);
  size_bytes_ = size_bytes;
  return absl::OkStatus();
}

absl::Status AppendOnlyFile::Sync() {
  if (::fdatasync(fd_.get()) != 0) return ErrnoError("fdatasync", path_);
  return absl::OkStatus();
}

}  // namespace profdiff::base
