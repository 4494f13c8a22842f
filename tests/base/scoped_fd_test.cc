// Ownership of a file descriptor (scoped_fd.cc): closed exactly once, by
// whoever owns it last.
#include "base/scoped_fd.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include <gtest/gtest.h>

namespace profdiff::base {
namespace {

bool IsOpen(int fd) { return ::fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

// A pipe's two ends, for descriptors to own.
struct Pipe {
  Pipe() { EXPECT_EQ(::pipe(fds), 0); }
  int fds[2] = {-1, -1};
};

TEST(ScopedFdTest, DefaultOwnsNothing) {
  const ScopedFd fd;
  EXPECT_FALSE(fd.valid());
  EXPECT_EQ(fd.get(), -1);
}

TEST(ScopedFdTest, ClosesItsDescriptorWhenItGoesAway) {
  Pipe pipe;
  {
    const ScopedFd read_end(pipe.fds[0]);
    EXPECT_TRUE(read_end.valid());
    EXPECT_EQ(read_end.get(), pipe.fds[0]);
    EXPECT_TRUE(IsOpen(pipe.fds[0]));
  }
  EXPECT_FALSE(IsOpen(pipe.fds[0]));
  ::close(pipe.fds[1]);
}

TEST(ScopedFdTest, ReleaseGivesUpOwnershipWithoutClosing) {
  Pipe pipe;
  int released = -1;
  {
    ScopedFd read_end(pipe.fds[0]);
    released = read_end.Release();
    EXPECT_FALSE(read_end.valid());
  }
  EXPECT_EQ(released, pipe.fds[0]);
  EXPECT_TRUE(IsOpen(released));
  ::close(released);
  ::close(pipe.fds[1]);
}

TEST(ScopedFdTest, MoveHandsOwnershipOn) {
  Pipe pipe;
  ScopedFd from(pipe.fds[0]);
  {
    const ScopedFd to(std::move(from));
    EXPECT_FALSE(from.valid());  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(to.get(), pipe.fds[0]);
  }
  EXPECT_FALSE(IsOpen(pipe.fds[0]));
  ::close(pipe.fds[1]);
}

TEST(ScopedFdTest, MoveAssignmentClosesWhatWasOwnedBefore) {
  Pipe pipe;
  ScopedFd target(pipe.fds[0]);
  ScopedFd source(pipe.fds[1]);
  target = std::move(source);
  EXPECT_FALSE(IsOpen(pipe.fds[0]));
  EXPECT_TRUE(IsOpen(pipe.fds[1]));
  EXPECT_EQ(target.get(), pipe.fds[1]);
  EXPECT_FALSE(source.valid());  // NOLINT(bugprone-use-after-move)
}

TEST(ScopedFdTest, SelfMoveAssignmentKeepsTheDescriptorOpen) {
  Pipe pipe;
  ScopedFd fd(pipe.fds[0]);
  ScopedFd& alias = fd;
  fd = std::move(alias);
  EXPECT_EQ(fd.get(), pipe.fds[0]);
  EXPECT_TRUE(IsOpen(pipe.fds[0]));
  ::close(pipe.fds[1]);
}

}  // namespace
}  // namespace profdiff::base
