// The agent's unix socket for the CUPTI injection libraries (--listen-unix):
// a gRPC server that accepts only the users the operator allows, and that
// tells each call which process is calling.
//
// Design:
// 1. The socket file is the agent's, mode 0600, or 0660 with the operator's
//    group (--relay-group): the kernel refuses connect() to everyone else. An
//    accepted connection is checked again (SO_PEERCRED): its uid must be the
//    agent's, root's, or its gid or one of its groups the relay group;
//    another is closed at once, logged and counted.
// 2. Each accepted connection is handed to the gRPC server
//    (grpc::AddInsecureChannelFromFd), which names it "fd:N" in its calls'
//    peer(); PeerOf maps that back to the credentials taken at accept, so a
//    service knows the uid and pid behind every stream. A descriptor number is
//    reused only once gRPC has closed its connection, and then the map is
//    updated at the next accept.
// 3. Bind() takes the socket before the services exist (they ask PeerOf of
//    it); Serve() starts the gRPC server and the one thread that owns the
//    listening socket (poll on it and an eventfd that Shutdown signals),
//    stopped and joined before the server shuts down.
#ifndef PROFDIFF_AGENT_RELAY_SOCKET_SERVER_H_
#define PROFDIFF_AGENT_RELAY_SOCKET_SERVER_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>
#include <grpcpp/server.h>
#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>

#include "agent/peer_process.h"
#include "base/scoped_fd.h"

namespace grpc {
class Service;
}

namespace profdiff::agent {

struct RelaySocketOptions {
  std::string path;  // the socket file
  // The group whose members may connect besides the agent's user and root;
  // nullopt: nobody else.
  std::optional<gid_t> group;
};

class RelaySocketServer {
 public:
  // Binds `options.path` (a socket left there by an earlier agent that no
  // process accepts on is replaced) with design note 1's mode and group, and
  // listens; nothing is accepted before Serve. Unavailable naming the path
  // when it cannot be bound, set up or listened on.
  static absl::StatusOr<std::unique_ptr<RelaySocketServer>> Bind(
      const RelaySocketOptions& options);
  // Serves `services` (not owned; they must outlive the server) on the
  // connections it accepts from now on. Unavailable when gRPC cannot start;
  // FailedPrecondition when called twice.
  absl::Status Serve(const std::vector<grpc::Service*>& services);
  ~RelaySocketServer();
  RelaySocketServer(const RelaySocketServer&) = delete;
  RelaySocketServer& operator=(const RelaySocketServer&) = delete;

  // The credentials of the connection a call came on; nullopt for a call
  // that did not come through this server's socket.
  std::optional<PeerCredentials> PeerOf(
      const grpc::ServerContextBase& context) const ABSL_LOCKS_EXCLUDED(mu_);
  // Connections closed at once because their user is not allowed.
  int64_t refused() const { return refused_.load(); }

  // Stops accepting, gives open calls until `deadline`, removes the socket
  // file. Later calls do nothing.
  void Shutdown(absl::Time deadline);

  // Use Bind().
  RelaySocketServer(RelaySocketOptions options, base::ScopedFd listener,
                    base::ScopedFd wake);

 private:
  void Accept(const std::stop_token& stop);
  bool Allowed(const PeerCredentials& peer) const;

  const RelaySocketOptions options_;
  const base::ScopedFd listener_;
  const base::ScopedFd wake_;  // eventfd: Shutdown makes it readable
  std::unique_ptr<grpc::Server> server_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<int, PeerCredentials> peers_ ABSL_GUARDED_BY(mu_);
  std::atomic<int64_t> refused_{0};
  bool shut_down_ = false;
  std::jthread thread_;  // started by Serve
};

// The gid of group `name` (a name, or a number); NotFound naming it when the
// system has no such group.
absl::StatusOr<gid_t> GroupId(const std::string& name);

// Who is calling, for a service on the relay socket: the credentials of the
// call's connection, or nullopt when it came another way.
using PeerLookup = std::function<std::optional<PeerCredentials>(
    const grpc::ServerContextBase& context)>;

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_RELAY_SOCKET_SERVER_H_
