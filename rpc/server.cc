#include "rpc/server.h"

#include <grpcpp/server_builder.h>

#include "base/str_cat.h"
#include "rpc/keepalive.h"
#include "rpc/limits.h"

namespace profdiff::rpc {

namespace {

// What every server of profdiff's gets: limits, keepalive, its services.
void Configure(grpc::ServerBuilder& builder,
               const std::vector<grpc::Service*>& services) {
  // gRPC binds with SO_REUSEPORT by default: a second server on a busy port
  // would start and share its connections instead of failing.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.SetMaxSendMessageSize(kMaxReplyBytes);
  // Keepalive (rpc/keepalive.h): a frozen client's calls end, and with them its
  // span leases.
  const Keepalive keepalive = ServerKeepalive();
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS,
                             GrpcMillis(keepalive.time));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                             GrpcMillis(keepalive.timeout));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // Accept the clients' pings (by default a server refuses pings closer than 5
  // minutes apart).
  builder.AddChannelArgument(
      GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
      GrpcMillis(MinClientPingInterval()));
  for (grpc::Service* service : services) builder.RegisterService(service);
}

}  // namespace

absl::StatusOr<RunningServer> StartServer(
    const std::string& address, const std::vector<grpc::Service*>& services,
    const ServerSecurity& security) {
  grpc::ServerBuilder builder;
  RunningServer running;
  builder.AddListeningPort(address, security.MakeCredentials(), &running.port);
  Configure(builder, services);
  running.server = builder.BuildAndStart();
  if (running.server == nullptr || running.port == 0) {
    return absl::UnavailableError(base::StrCat(
        "cannot listen on ", address, " (address in use, or not HOST:PORT?",
        security.tls() ? " Or the TLS key does not match the certificate?" : "",
        ")"));
  }
  return running;
}

absl::StatusOr<std::unique_ptr<grpc::Server>> StartServerWithoutPorts(
    const std::vector<grpc::Service*>& services) {
  grpc::ServerBuilder builder;
  Configure(builder, services);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) {
    return absl::UnavailableError("gRPC did not start a server without ports");
  }
  return server;
}

}  // namespace profdiff::rpc
