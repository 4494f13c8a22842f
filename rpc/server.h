// Starts a gRPC server on an address with profdiff's limits, and tells the port
// it got (tests bind 127.0.0.1:0).
#ifndef PROFDIFF_RPC_SERVER_H_
#define PROFDIFF_RPC_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include <absl/status/statusor.h>
#include <grpcpp/server.h>

#include "rpc/credentials.h"

namespace grpc {
class Service;
}

namespace profdiff::rpc {

struct RunningServer {
  std::unique_ptr<grpc::Server> server;
  int port = 0;  // the port bound, also when the address asked for 0
};

// Serves `services` (not owned; they must outlive the server) on `address`
// ("HOST:PORT"), in plaintext or with the TLS and token checks of `security`.
// Unavailable when the address cannot be bound (or, with TLS, when gRPC refuses
// the certificate and key).
absl::StatusOr<RunningServer> StartServer(
    const std::string& address, const std::vector<grpc::Service*>& services,
    const ServerSecurity& security = ServerSecurity());

// A server with `services` and the same limits but no listening port: its
// connections are handed to it one by one (grpc::AddInsecureChannelFromFd) by
// an owner that accepts them itself. Unavailable when gRPC cannot start it.
absl::StatusOr<std::unique_ptr<grpc::Server>> StartServerWithoutPorts(
    const std::vector<grpc::Service*>& services);

}  // namespace profdiff::rpc

#endif  // PROFDIFF_RPC_SERVER_H_
