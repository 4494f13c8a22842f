// Ownership of a POSIX file descriptor: closed exactly once, when its owner
// goes away.
#ifndef PROFDIFF_BASE_SCOPED_FD_H_
#define PROFDIFF_BASE_SCOPED_FD_H_

namespace profdiff::base {

// Owns `fd` (negative = none) and closes it on destruction. Move-only.
class ScopedFd {
 public:
  ScopedFd() = default;
  explicit ScopedFd(int fd) : fd_(fd) {}
  ~ScopedFd();
  ScopedFd(ScopedFd&& other) noexcept : fd_(other.Release()) {}
  ScopedFd& operator=(ScopedFd&& other) noexcept;
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;

  bool valid() const { return fd_ >= 0; }
  int get() const { return fd_; }

  // Gives up ownership without closing; returns the descriptor.
  int Release();

 private:
  int fd_ = -1;
};

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_SCOPED_FD_H_
