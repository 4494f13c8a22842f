#include "base/file_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/str_cat.h"

namespace profdiff::base {
namespace {

// Closes the descriptor when the read is done, whatever path it takes.
class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd() {
    if (fd_ >= 0) close(fd_);
  }
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

absl::Status ErrnoStatus(int err, const std::string& path,
                         std::string_view what) {
  const std::string message =
      base::StrCat(path, ": ", what, ": ", std::strerror(err));
  if (err == ENOENT) return absl::NotFoundError(message);
  if (err == EACCES || err == EISDIR)
    return absl::InvalidArgumentError(message);
  return absl::UnavailableError(message);
}

}  // namespace

absl::Status ReadFileInto(const std::string& path, uint64_t max_bytes,
                          std::string& out) {
  ScopedFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoStatus(errno, path, "open");
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return ErrnoStatus(errno, path, "stat");
  if (S_ISDIR(st.st_mode))
    return absl::InvalidArgumentError(base::StrCat(path, ": is a folder"));
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) {
    return absl::ResourceExhaustedError(base::StrCat(
        path, ": file is ", size, " bytes, over the limit of ", max_bytes));
  }
  out.resize(size);
  uint64_t done = 0;
  while (done < size) {
    const ssize_t n = read(fd.get(), out.data() + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, path, "read");
    }
    if (n == 0) break;  // The file shrank while we read it: keep what is there.
    done += static_cast<uint64_t>(n);
  }
  out.resize(done);
  return absl::OkStatus();
}

}  // namespace profdiff::base
