#include "agent/unix_datagram_socket.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <absl/status/status.h>
#include <absl/strings/escaping.h>

#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::agent {
namespace {

// sun_path less the leading and trailing NUL of an abstract name.
constexpr size_t kMaxAbstractName = sizeof(sockaddr_un::sun_path) - 2;

std::string Printable(std::string_view address) {
  if (address.size() <= sizeof(sa_family_t)) return "(unnamed)";
  std::string_view path = address.substr(sizeof(sa_family_t));
  if (path.front() == '\0') {
    return base::StrCat("@", absl::CEscape(base::ToAbsl(path.substr(1))));
  }
  return std::string(path.substr(0, path.find('\0')));
}

absl::Status Errno(std::string_view what, std::string_view address) {
  return absl::UnavailableError(
      base::StrCat(what, " ", Printable(address), ": ", std::strerror(errno)));
}

}  // namespace

absl::StatusOr<std::string> FabricAddress(std::string_view name,
                                          std::string_view socket_dir) {
  if (name.empty()) {
    return absl::InvalidArgumentError("a fabric endpoint needs a name");
  }
  sockaddr_un address = {};
  address.sun_family = AF_UNIX;
  size_t length = 0;
  if (socket_dir.empty()) {
    if (name.size() > kMaxAbstractName) {
      return absl::InvalidArgumentError(
          base::StrCat("abstract socket name \"", name, "\" is ", name.size(),
                       " bytes; the limit is ", kMaxAbstractName));
    }
    // "\0NAME\0": the fabric counts the trailing NUL in the address.
    std::memcpy(address.sun_path + 1, name.data(), name.size());
    length = sizeof(sa_family_t) + name.size() + 2;
  } else {
    const std::string path = base::StrCat(socket_dir, "/", name);
    if (path.size() >= sizeof(address.sun_path)) {
      return absl::InvalidArgumentError(
          base::StrCat("socket path \"", path, "\" is ", path.size(),
                       " bytes; the limit is ", sizeof(address.sun_path) - 1));
    }
    std::memcpy(address.sun_path, path.data(), path.size());
    length = sizeof(sa_family_t) + path.size() + 1;
  }
  return std::string(reinterpret_cast<const char*>(&address), length);
}

absl::StatusOr<UnixDatagramSocket> UnixDatagramSocket::Bind(
    std::string_view name, std::string_view socket_dir) {
  PD_ASSIGN_OR_RETURN(const std::string address,
                      FabricAddress(name, socket_dir));
  base::ScopedFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return Errno("cannot create a socket for", address);
  std::string path;
  if (!socket_dir.empty()) {
    path = base::StrCat(socket_dir, "/", name);
    ::unlink(path.c_str());  // as the fabric does: the name is the daemon's
  }
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(address.data()),
             address.size()) != 0) {
    return Errno("cannot bind", address);
  }
  // Every datagram comes with its sender's credentials (design note in the
  // header): kineto's messages carry pids that must be checked.
  const int on = 1;
  if (::setsockopt(fd.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0) {
    return Errno("cannot ask for senders' credentials on", address);
  }
  // As the fabric does: processes of other users send to the daemon.
  if (!path.empty()) ::chmod(path.c_str(), 0666);
  return UnixDatagramSocket(std::move(fd), std::move(path));
}

absl::StatusOr<UnixDatagramSocket> UnixDatagramSocket::Unnamed() {
  base::ScopedFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return Errno("cannot create a socket for", "");
  const sa_family_t family = AF_UNIX;  // autobind: a fresh abstract name
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&family),
             sizeof(family)) != 0) {
    return Errno("cannot autobind", "");
  }
  return UnixDatagramSocket(std::move(fd), "");
}

UnixDatagramSocket::~UnixDatagramSocket() {
  if (!path_.empty() && fd_.valid()) ::unlink(path_.c_str());
}

absl::StatusOr<std::optional<UnixDatagramSocket::Datagram>>
UnixDatagramSocket::Receive(absl::Duration timeout, size_t max_bytes) {
  pollfd ready = {.fd = fd_.get(), .events = POLLIN, .revents = 0};
  const int waited =
      ::poll(&ready, 1, static_cast<int>(absl::ToInt64Milliseconds(timeout)));
  if (waited < 0 && errno != EINTR) {
    return absl::InternalError(
        base::StrCat("poll on a datagram socket: ", std::strerror(errno)));
  }
  if (waited <= 0) return std::nullopt;
  Datagram datagram;
  datagram.bytes.resize(max_bytes);
  sockaddr_un sender = {};
  iovec io = {.iov_base = datagram.bytes.data(), .iov_len = max_bytes};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))] = {};
  msghdr header = {};
  header.msg_name = &sender;
  header.msg_namelen = sizeof(sender);
  header.msg_iov = &io;
  header.msg_iovlen = 1;
  header.msg_control = control;
  header.msg_controllen = sizeof(control);
  const ssize_t got = ::recvmsg(fd_.get(), &header, MSG_DONTWAIT);
  if (got < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      return std::nullopt;
    }
    return absl::InternalError(
        base::StrCat("recvmsg on a datagram socket: ", std::strerror(errno)));
  }
  datagram.bytes.resize(static_cast<size_t>(got));
  datagram.truncated = (header.msg_flags & MSG_TRUNC) != 0;
  datagram.sender.assign(reinterpret_cast<const char*>(&sender),
                         header.msg_namelen);
  for (cmsghdr* message = CMSG_FIRSTHDR(&header); message != nullptr;
       message = CMSG_NXTHDR(&header, message)) {
    if (message->cmsg_level == SOL_SOCKET &&
        message->cmsg_type == SCM_CREDENTIALS &&
        message->cmsg_len >= CMSG_LEN(sizeof(ucred))) {
      ucred credentials;
      std::memcpy(&credentials, CMSG_DATA(message), sizeof(credentials));
      datagram.peer = PeerCredentials{.pid = credentials.pid,
                                      .uid = credentials.uid,
                                      .gid = credentials.gid};
    }
  }
  return datagram;
}

absl::Status UnixDatagramSocket::SendTo(std::string_view address,
                                        std::string_view bytes) {
  if (::sendto(fd_.get(), bytes.data(), bytes.size(), MSG_DONTWAIT,
               reinterpret_cast<const sockaddr*>(address.data()),
               static_cast<socklen_t>(address.size())) < 0) {
    return Errno("cannot send to", address);
  }
  return absl::OkStatus();
}

}  // namespace profdiff::agent
