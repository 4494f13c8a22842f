// Starts a gRPC server on an address with profdiff's limits, and tells the port it got (tests
// bind 127.0.0.1:0).
#ifndef PROFDIFF_RPC_SERVER_H_
#define PROFDIFF_RPC_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include <absl/status/statusor.h>
#include <grpcpp/server.h>

namespace grpc {
class Service;
}

namespace profdiff::rpc {

struct RunningServer {
  std::unique_ptr<grpc::Server> server;
  int port = 0;  // the port bound, also when the address asked for 0
};

// Serves `services` (not owned; they must outlive the server) on `address` ("HOST:PORT").
// Unavailable when the address cannot be bound. Plaintext: the aggregator is meant for a
// cluster's private network; DESIGN.md keeps credentials here for when that changes.
absl::StatusOr<RunningServer> StartServer(const std::string& address,
                                          const std::vector<grpc::Service*>& services);

}  // namespace profdiff::rpc

#endif  // PROFDIFF_RPC_SERVER_H_
