// A disk that fills up, for the fault tests: loaded into profdiff-aggregator
// with LD_PRELOAD, it makes every write to a file under $PROFDIFF_ENOSPC_DIR
// fail with ENOSPC while the file $PROFDIFF_ENOSPC_FLAG exists. The test
// creates the flag ("the disk is full") and removes it ("space was freed"),
// with no root, loop device or size-limited mount needed.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

bool DiskFull(int fd) {
  const char* dir = std::getenv("PROFDIFF_ENOSPC_DIR");
  const char* flag = std::getenv("PROFDIFF_ENOSPC_FLAG");
  if (dir == nullptr || flag == nullptr || ::access(flag, F_OK) != 0)
    return false;
  char link[64];
  char target[4096];
  std::snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  const ssize_t n = ::readlink(link, target, sizeof(target) - 1);
  if (n <= 0) return false;
  target[n] = '\0';
  return std::strncmp(target, dir, std::strlen(dir)) == 0;
}

bool IsFile(int fd) {
  struct stat st;
  return ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

template <typename F>
F Next(const char* name) {
  return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {

ssize_t write(int fd, const void* data, size_t size) {
  static const auto next = Next<ssize_t (*)(int, const void*, size_t)>("write");
  if (DiskFull(fd)) {
    errno = ENOSPC;
    return -1;
  }
  return next(fd, data, size);
}

ssize_t pwrite(int fd, const void* data, size_t size, off_t offset) {
  static const auto next =
      Next<ssize_t (*)(int, const void*, size_t, off_t)>("pwrite");
  if (DiskFull(fd)) {
    errno = ENOSPC;
    return -1;
  }
  return next(fd, data, size, offset);
}

ssize_t pwrite64(int fd, const void* data, size_t size, off64_t offset) {
  static const auto next =
      Next<ssize_t (*)(int, const void*, size_t, off64_t)>("pwrite64");
  if (DiskFull(fd)) {
    errno = ENOSPC;
    return -1;
  }
  return next(fd, data, size, offset);
}

ssize_t writev(int fd, const struct iovec* iov, int count) {
  static const auto next =
      Next<ssize_t (*)(int, const struct iovec*, int)>("writev");
  if (DiskFull(fd)) {
    errno = ENOSPC;
    return -1;
  }
  return next(fd, iov, count);
}

// A delayed-allocation write failing at sync time, as ext4 reports it (files
// only).
int fsync(int fd) {
  static const auto next = Next<int (*)(int)>("fsync");
  if (IsFile(fd) && DiskFull(fd)) {
    errno = ENOSPC;
    return -1;
  }
  return next(fd);
}

int fdatasync(int fd) {
  static const auto next = Next<int (*)(int)>("fdatasync");
  if (IsFile(fd) && DiskFull(fd)) {
    errno = ENOSPC;
    return -1;
  }
  return next(fd);
}

}  // extern "C"
