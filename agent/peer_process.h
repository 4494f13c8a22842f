// Who is at the other end of a local socket, as the kernel says, and the
// process a message claims to come from checked against it. The agent's local
// endpoints (Kineto's daemon socket, the CUPTI relay) trust nothing else: the
// pids and jobs in messages are the sender's word.
//
// Design:
// 1. The kernel's credentials are the only ones trusted: SO_PEERCRED of a
//    connected stream, SCM_CREDENTIALS of a datagram (the receiver sets
//    SO_PASSCRED). Their pid is the sender's in the agent's PID namespace.
// 2. A claimed pid is accepted only when it is the sender's own pid, or the
//    sender's pid in its innermost PID namespace (the last NSpid field of
//    /proc/PID/status): a training process in a container, whose getpid()
//    kineto sends. Anything else is another process's pid.
// 3. A sender the agent cannot see (pid 0: a PID namespace not below the
//    agent's) cannot be checked and is refused.
#ifndef PROFDIFF_AGENT_PEER_PROCESS_H_
#define PROFDIFF_AGENT_PEER_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include <absl/status/statusor.h>

namespace profdiff::agent {

// The kernel's word on a socket peer (design note 1).
struct PeerCredentials {
  int32_t pid = 0;  // in the agent's PID namespace; 0 when not visible there
  uint32_t uid = 0;
  uint32_t gid = 0;
};

// A process whose claimed pid its credentials back (design note 2).
struct VerifiedProcess {
  int32_t host_pid = 0;  // the agent's view: the peer's pid
  int32_t pid = 0;       // the process's own view: what it claimed
  uint32_t uid = 0;
  uint32_t gid = 0;
};

// SO_PEERCRED of the connected unix socket `fd`. Internal naming the errno
// when the kernel does not say.
absl::StatusOr<PeerCredentials> PeerCredentialsOf(int fd);

// Checks that `peer` is process `claimed_pid` (design notes 2 and 3), reading
// `<proc_root>/<peer.pid>/status` when the pids differ. PermissionDenied
// naming both pids and the peer's uid when they are not one process, or when
// the peer's pid is not visible here; InvalidArgument for a claimed pid <= 0.
absl::StatusOr<VerifiedProcess> VerifyClaimedPid(
    int32_t claimed_pid, const PeerCredentials& peer,
    std::string_view proc_root = "/proc");

// The pid of `host_pid` in its innermost PID namespace (the last NSpid field
// of `<proc_root>/<host_pid>/status`); `host_pid` itself when the kernel
// lists no NSpid (before Linux 4.1); NotFound when the process is gone.
absl::StatusOr<int32_t> InnermostPid(int32_t host_pid,
                                     std::string_view proc_root = "/proc");

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_PEER_PROCESS_H_
