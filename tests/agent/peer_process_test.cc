#include "agent/peer_process.h"

#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/scoped_fd.h"
#include "tests/support/test_dir.h"

namespace profdiff::agent {
namespace {

using ::testing::HasSubstr;

// A /proc with one process: `host_pid` whose status lists `nspid` (the
// NSpid line's fields), or no NSpid line when empty.
void FakeProcess(const test_support::TempDir& proc, int32_t host_pid,
                 const std::string& nspid) {
  const std::string dir = proc.Join(std::to_string(host_pid));
  std::filesystem::create_directories(dir);
  std::ofstream status(dir + "/status");
  status << "Name:\tpython3\nPid:\t" << host_pid << "\n";
  if (!nspid.empty()) status << "NSpid:\t" << nspid << "\n";
  status << "Uid:\t1000\t1000\t1000\t1000\n";
}

TEST(PeerProcessTest, TheKernelsCredentialsOfASocketPeerAreThisProcess) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  const base::ScopedFd a(fds[0]), b(fds[1]);
  const absl::StatusOr<PeerCredentials> peer = PeerCredentialsOf(a.get());
  ASSERT_TRUE(peer.ok()) << peer.status();
  EXPECT_EQ(peer->pid, ::getpid());
  EXPECT_EQ(peer->uid, ::getuid());
  EXPECT_EQ(peer->gid, ::getgid());
}

TEST(PeerProcessTest, ASenderSpeakingForItselfIsAccepted) {
  const absl::StatusOr<VerifiedProcess> process =
      VerifyClaimedPid(4242, {.pid = 4242, .uid = 1000, .gid = 100});
  ASSERT_TRUE(process.ok()) << process.status();
  EXPECT_EQ(process->host_pid, 4242);
  EXPECT_EQ(process->pid, 4242);
  EXPECT_EQ(process->uid, 1000u);
}

// A process in a container says its own pid (7); the kernel gives the
// agent's view (5001), whose status lists both.
TEST(PeerProcessTest, AContainersPidIsAcceptedThroughItsNSpid) {
  test_support::TempDir proc;
  FakeProcess(proc, 5001, "5001\t88\t7");
  const absl::StatusOr<VerifiedProcess> process =
      VerifyClaimedPid(7, {.pid = 5001, .uid = 1000}, proc.path());
  ASSERT_TRUE(process.ok()) << process.status();
  EXPECT_EQ(process->host_pid, 5001);
  EXPECT_EQ(process->pid, 7);
  // Only the innermost pid is the process's own.
  EXPECT_EQ(VerifyClaimedPid(88, {.pid = 5001}, proc.path()).status().code(),
            absl::StatusCode::kPermissionDenied);
}

// Regression for #42: a message for another process's pid is refused.
TEST(PeerProcessTest, AClaimOfAnotherPidIsPermissionDenied) {
  test_support::TempDir proc;
  FakeProcess(proc, 5001, "5001");
  const absl::Status refused =
      VerifyClaimedPid(4242, {.pid = 5001, .uid = 65534}, proc.path()).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(refused.message(),
              HasSubstr("a message for pid 4242 comes from pid 5001 (uid "
                        "65534), which is pid 5001 in its namespace"));
  // Before Linux 4.1 there is no NSpid: the pid is the process's own.
  FakeProcess(proc, 6001, "");
  EXPECT_EQ(InnermostPid(6001, proc.path()).value_or(0), 6001);
  EXPECT_EQ(VerifyClaimedPid(7, {.pid = 6001}, proc.path()).status().code(),
            absl::StatusCode::kPermissionDenied);
}

TEST(PeerProcessTest, ASenderOutsideTheAgentsNamespaceCannotBeChecked) {
  const absl::Status refused =
      VerifyClaimedPid(7, {.pid = 0, .uid = 0}).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(refused.message(),
              HasSubstr("outside the agent's PID namespace"));
}

TEST(PeerProcessTest, PidsBelowOneAreNoProcess) {
  for (const int32_t pid : {0, -1, -4242}) {
    EXPECT_EQ(VerifyClaimedPid(pid, {.pid = ::getpid()}).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

}  // namespace
}  // namespace profdiff::agent
