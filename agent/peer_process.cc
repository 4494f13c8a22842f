#include "agent/peer_process.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <absl/status/status.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>
#include <absl/strings/strip.h>

#include "base/str_cat.h"

namespace profdiff::agent {

absl::StatusOr<PeerCredentials> PeerCredentialsOf(int fd) {
  ucred credentials = {};
  socklen_t length = sizeof(credentials);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) {
    return absl::InternalError(
        base::StrCat("SO_PEERCRED of a unix socket: ", std::strerror(errno)));
  }
  return PeerCredentials{
      .pid = credentials.pid, .uid = credentials.uid, .gid = credentials.gid};
}

absl::StatusOr<int32_t> InnermostPid(int32_t host_pid,
                                     std::string_view proc_root) {
  std::ifstream status(base::StrCat(proc_root, "/", host_pid, "/status"));
  if (!status) {
    return absl::NotFoundError(base::StrCat("process ", host_pid, " is gone"));
  }
  std::string line;
  while (std::getline(status, line)) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, "NSpid:")) continue;
    const std::vector<absl::string_view> fields =
        absl::StrSplit(rest, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    int32_t innermost = 0;
    if (fields.empty() || !absl::SimpleAtoi(fields.back(), &innermost)) {
      return absl::NotFoundError(base::StrCat(
          "process ", host_pid, ": unreadable NSpid line in its status"));
    }
    return innermost;
  }
  return host_pid;
}

absl::StatusOr<VerifiedProcess> VerifyClaimedPid(int32_t claimed_pid,
                                                 const PeerCredentials& peer,
                                                 std::string_view proc_root) {
  if (claimed_pid <= 0) {
    return absl::InvalidArgumentError(
        base::StrCat("pid ", claimed_pid, " is not a process id"));
  }
  if (peer.pid <= 0) {
    return absl::PermissionDeniedError(base::StrCat(
        "a message for pid ", claimed_pid, " from uid ", peer.uid,
        " comes from a process outside the agent's PID namespace, so its pid "
        "cannot be checked (run the agent in the host's PID namespace)"));
  }
  VerifiedProcess process{.host_pid = peer.pid,
                          .pid = claimed_pid,
                          .uid = peer.uid,
                          .gid = peer.gid};
  if (peer.pid == claimed_pid) return process;
  const absl::StatusOr<int32_t> innermost = InnermostPid(peer.pid, proc_root);
  if (innermost.ok() && *innermost == claimed_pid) return process;
  return absl::PermissionDeniedError(base::StrCat(
      "a message for pid ", claimed_pid, " comes from pid ", peer.pid, " (uid ",
      peer.uid, ")",
      innermost.ok()
          ? base::StrCat(", which is pid ", *innermost, " in its namespace")
          : std::string(""),
      ": a process speaks only for itself"));
}

}  // namespace profdiff::agent
