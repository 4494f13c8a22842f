#include "rpc/channel.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/support/channel_arguments.h>

#include "rpc/keepalive.h"
#include "rpc/limits.h"

namespace profdiff::rpc {

namespace {

grpc::ChannelArguments LimitedArguments() {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(kMaxReplyBytes);
  arguments.SetMaxSendMessageSize(kMaxMessageBytes);
  const Keepalive keepalive = ClientKeepalive();
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, GrpcMillis(keepalive.time));
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                   GrpcMillis(keepalive.timeout));
  // Also between calls: an agent's channel idles between files, and must not
  // pick a dead connection for the next one.
  arguments.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  arguments.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  return arguments;
}

}  // namespace

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& address,
                                           const ChannelSecurity& security) {
  return grpc::CreateCustomChannel(address, security.credentials(),
                                   LimitedArguments());
}

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& address,
                                           const ChannelSecurity& security,
                                           const ReconnectBackoff& backoff) {
  grpc::ChannelArguments arguments = LimitedArguments();
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
                   GrpcMillis(backoff.initial));
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, GrpcMillis(backoff.max));
  return grpc::CreateCustomChannel(address, security.credentials(), arguments);
}

void SetTimeout(grpc::ClientContext& context, absl::Duration timeout) {
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
}

}  // namespace profdiff::rpc
