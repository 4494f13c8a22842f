#include "rpc/server.h"

#include <grpcpp/server_builder.h>

#include "base/str_cat.h"
#include "rpc/limits.h"

namespace profdiff::rpc {

absl::StatusOr<RunningServer> StartServer(const std::string& address,
                                          const std::vector<grpc::Service*>& services,
                                          const ServerSecurity& security) {
  grpc::ServerBuilder builder;
  RunningServer running;
  builder.AddListeningPort(address, security.MakeCredentials(), &running.port);
  // gRPC binds with SO_REUSEPORT by default: a second server on a busy port would start and
  // share its connections instead of failing.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.SetMaxSendMessageSize(kMaxReplyBytes);
  for (grpc::Service* service : services) builder.RegisterService(service);
  running.server = builder.BuildAndStart();
  if (running.server == nullptr || running.port == 0) {
    return absl::UnavailableError(base::StrCat(
        "cannot listen on ", address, " (address in use, or not HOST:PORT?",
        security.tls() ? " Or the TLS key does not match the certificate?" : "", ")"));
  }
  return running;
}

}  // namespace profdiff::rpc
