#include "base/file_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/env.h"
#include "base/scoped_fd.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::base {
namespace {

// The codes of a failed read: what the caller can act on, not only the errno.
absl::Status ReadError(int err, const std::string& path,
                       std::string_view what) {
  const std::string message =
      StrCat(path, ": ", what, ": ", std::strerror(err));
  if (err == ENOENT) return absl::NotFoundError(message);
  if (err == EACCES || err == EISDIR)
    return absl::InvalidArgumentError(message);
  return absl::UnavailableError(message);
}

}  // namespace

absl::Status ReadFileInto(const std::string& path, uint64_t max_bytes,
                          std::string& out) {
  return Env::Default()->ReadFileInto(path, max_bytes, out);
}

absl::Status ReadFileInto(const std::string& path, uint64_t max_bytes,
                          PageBuffer& out, size_t& size) {
  PD_ASSIGN_OR_RETURN(
      size, ReadFileWith(path, max_bytes,
                         [&](uint64_t bytes) -> absl::StatusOr<char*> {
                           PD_RETURN_IF_ERROR(out.Grow(bytes, 0));
                           return out.data();
                         }));
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ReadFileWith(
    const std::string& path, uint64_t max_bytes,
    absl::FunctionRef<absl::StatusOr<char*>(uint64_t)> buffer) {
  const ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return ReadError(errno, path, "open");
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return ReadError(errno, path, "stat");
  if (S_ISDIR(st.st_mode))
    return absl::InvalidArgumentError(StrCat(path, ": is a folder"));
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) {
    return absl::ResourceExhaustedError(StrCat(
        path, ": file is ", size, " bytes, over the limit of ", max_bytes));
  }
  PD_ASSIGN_OR_RETURN(char* const into, buffer(size));
  uint64_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd.get(), into + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ReadError(errno, path, "read");
    }
    if (n == 0) break;  // The file shrank while we read it: keep what is.
    done += static_cast<uint64_t>(n);
  }
  return done;
}

}  // namespace profdiff::base
