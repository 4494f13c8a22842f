#include "agent/relay_socket_server.h"

#include <grp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

#include <absl/status/status.h>
#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>
#include <absl/strings/strip.h>
#include <grpcpp/server_posix.h>

#include "base/log.h"
#include "base/str_cat.h"
#include "rpc/server.h"

namespace profdiff::agent {
namespace {

constexpr int kListenBacklog = 128;
// Refusals are logged one by one up to this many, then every 100th.
constexpr int64_t kRefusalsLoggedInFull = 10;

absl::Status Errno(std::string_view what, std::string_view path) {
  return absl::UnavailableError(
      base::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

// Removes a socket an earlier agent left (killed before it could). A socket
// some process still accepts on, or anything that is not a socket, is left
// alone: binding then fails and says so.
void RemoveStaleSocket(const std::string& path, const sockaddr_un& address) {
  struct stat info;
  if (::lstat(path.c_str(), &info) != 0 || !S_ISSOCK(info.st_mode)) return;
  base::ScopedFd probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!probe.valid()) return;
  if (::connect(probe.get(), reinterpret_cast<const sockaddr*>(&address),
                sizeof(address)) != 0) {
    ::unlink(path.c_str());
  }
}

// Whether `group` is among the supplementary groups of process `pid`
// (/proc/PID/status "Groups:").
bool InSupplementaryGroups(int32_t pid, gid_t group) {
  std::ifstream status(base::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, "Groups:")) continue;
    for (absl::string_view field :
         absl::StrSplit(rest, absl::ByAnyChar(" \t"), absl::SkipEmpty())) {
      gid_t gid = 0;
      if (absl::SimpleAtoi(field, &gid) && gid == group) return true;
    }
    return false;
  }
  return false;
}

// "fd:N" (grpc's name for a connection handed over by descriptor) -> N.
std::optional<int> DescriptorOf(const std::string& peer) {
  absl::string_view rest = peer;
  int fd = -1;
  if (!absl::ConsumePrefix(&rest, "fd:") || !absl::SimpleAtoi(rest, &fd)) {
    return std::nullopt;
  }
  return fd;
}

}  // namespace

absl::StatusOr<gid_t> GroupId(const std::string& name) {
  gid_t gid = 0;
  if (absl::SimpleAtoi(name, &gid)) return gid;
  const group* found = ::getgrnam(name.c_str());
  if (found == nullptr) {
    return absl::NotFoundError(
        base::StrCat("--relay-group ", name, ": no such group"));
  }
  return found->gr_gid;
}

absl::StatusOr<std::unique_ptr<RelaySocketServer>> RelaySocketServer::Bind(
    const RelaySocketOptions& options) {
  const std::string& path = options.path;
  sockaddr_un address = {};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(address.sun_path)) {
    return absl::InvalidArgumentError(
        base::StrCat("--listen-unix \"", path, "\": a socket path is 1 to ",
                     sizeof(address.sun_path) - 1, " bytes"));
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  RemoveStaleSocket(path, address);
  base::ScopedFd listener(
      ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!listener.valid()) return Errno("cannot make a socket for", path);
  if (::bind(listener.get(), reinterpret_cast<const sockaddr*>(&address),
             sizeof(address)) != 0) {
    return Errno("cannot bind", path);
  }
  // Mode and group before listen(): nobody connects before they are set.
  const mode_t mode = options.group.has_value() ? 0660 : 0600;
  if ((options.group.has_value() &&
       ::chown(path.c_str(), static_cast<uid_t>(-1), *options.group) != 0) ||
      ::chmod(path.c_str(), mode) != 0) {
    const absl::Status error = Errno("cannot set the owner and mode of", path);
    ::unlink(path.c_str());
    return error;
  }
  if (::listen(listener.get(), kListenBacklog) != 0) {
    const absl::Status error = Errno("cannot listen on", path);
    ::unlink(path.c_str());
    return error;
  }
  base::ScopedFd wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake.valid()) {
    const absl::Status error = Errno("cannot make an eventfd for", path);
    ::unlink(path.c_str());
    return error;
  }
  return std::make_unique<RelaySocketServer>(options, std::move(listener),
                                             std::move(wake));
}

RelaySocketServer::RelaySocketServer(RelaySocketOptions options,
                                     base::ScopedFd listener,
                                     base::ScopedFd wake)
    : options_(std::move(options)),
      listener_(std::move(listener)),
      wake_(std::move(wake)) {}

absl::Status RelaySocketServer::Serve(
    const std::vector<grpc::Service*>& services) {
  if (server_ != nullptr) {
    return absl::FailedPreconditionError(
        base::StrCat("relay socket ", options_.path, " is already served"));
  }
  absl::StatusOr<std::unique_ptr<grpc::Server>> server =
      rpc::StartServerWithoutPorts(services);
  if (!server.ok()) return server.status();
  server_ = *std::move(server);
  thread_ = std::jthread([this](const std::stop_token& stop) { Accept(stop); });
  return absl::OkStatus();
}

RelaySocketServer::~RelaySocketServer() { Shutdown(absl::Now()); }

bool RelaySocketServer::Allowed(const PeerCredentials& peer) const {
  if (peer.uid == ::geteuid() || peer.uid == 0) return true;
  if (!options_.group.has_value()) return false;
  return peer.gid == *options_.group ||
         (peer.pid > 0 && InSupplementaryGroups(peer.pid, *options_.group));
}

void RelaySocketServer::Accept(const std::stop_token& stop) {
  while (!stop.stop_requested()) {
    pollfd ready[] = {{.fd = listener_.get(), .events = POLLIN, .revents = 0},
                      {.fd = wake_.get(), .events = POLLIN, .revents = 0}};
    if (::poll(ready, 2, -1) < 0 && errno != EINTR) {
      PD_LOG(ERROR, "relay socket %s: poll: %s", options_.path,
             std::strerror(errno));
      return;
    }
    if ((ready[1].revents & POLLIN) != 0) return;
    if ((ready[0].revents & POLLIN) == 0) continue;
    base::ScopedFd connection(::accept4(listener_.get(), nullptr, nullptr,
                                        SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!connection.valid()) continue;  // gone before it was taken
    const absl::StatusOr<PeerCredentials> peer =
        PeerCredentialsOf(connection.get());
    if (!peer.ok() || !Allowed(*peer)) {
      const int64_t refused = ++refused_;
      if (refused <= kRefusalsLoggedInFull || refused % 100 == 0) {
        PD_LOG(WARNING, "relay socket %s: connection refused (%d so far): %s",
               options_.path, refused,
               peer.ok() ? base::StrCat("uid ", peer->uid, " (pid ", peer->pid,
                                        ") is not allowed: only the agent's "
                                        "user, root and --relay-group")
                         : std::string(peer.status().message()));
      }
      continue;  // closed by `connection`
    }
    {
      absl::MutexLock lock(&mu_);
      peers_.insert_or_assign(connection.get(), *peer);
    }
    grpc::AddInsecureChannelFromFd(server_.get(), connection.Release());
  }
}

std::optional<PeerCredentials> RelaySocketServer::PeerOf(
    const grpc::ServerContextBase& context) const {
  const std::optional<int> fd = DescriptorOf(context.peer());
  if (!fd.has_value()) return std::nullopt;
  absl::MutexLock lock(&mu_);
  auto it = peers_.find(*fd);
  if (it == peers_.end()) return std::nullopt;
  return it->second;
}

void RelaySocketServer::Shutdown(absl::Time deadline) {
  if (shut_down_) return;
  shut_down_ = true;
  thread_.request_stop();
  const uint64_t one = 1;
  if (::write(wake_.get(), &one, sizeof(one)) < 0) {
    PD_LOG(WARNING, "relay socket %s: cannot wake the accept loop: %s",
           options_.path, std::strerror(errno));
  }
  if (thread_.joinable()) thread_.join();
  if (server_ != nullptr) server_->Shutdown(absl::ToChronoTime(deadline));
  ::unlink(options_.path.c_str());
}

}  // namespace profdiff::agent
