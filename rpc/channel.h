// Client channels to profdiff servers, with the same message limits as the
// servers, and the deadline every call carries.
#ifndef PROFDIFF_RPC_CHANNEL_H_
#define PROFDIFF_RPC_CHANNEL_H_

#include <memory>
#include <string>

#include <absl/time/time.h>
#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include "rpc/credentials.h"

namespace profdiff::rpc {

// A channel to "HOST:PORT", plaintext unless `security` says TLS. Connects
// lazily; nothing fails here.
std::shared_ptr<grpc::Channel> MakeChannel(
    const std::string& address,
    const ChannelSecurity& security = ChannelSecurity());

// gRPC's reconnect backoff for a channel whose owner retries on its own
// schedule: gRPC's default grows to 120 s and would keep failing the owner's
// attempts long after the server is back.
struct ReconnectBackoff {
  absl::Duration initial = absl::Seconds(1);
  absl::Duration max = absl::Seconds(120);
};
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& address,
                                           const ChannelSecurity& security,
                                           const ReconnectBackoff& backoff);

// Sets `context`'s deadline to now + `timeout`.
void SetTimeout(grpc::ClientContext& context, absl::Duration timeout);

}  // namespace profdiff::rpc

#endif  // PROFDIFF_RPC_CHANNEL_H_
