#include "rpc/channel.h"

#include <algorithm>

#include <grpcpp/create_channel.h>
#include <grpcpp/support/channel_arguments.h>

#include "rpc/limits.h"

namespace profdiff::rpc {

namespace {

grpc::ChannelArguments LimitedArguments() {
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(kMaxReplyBytes);
  arguments.SetMaxSendMessageSize(kMaxMessageBytes);
  return arguments;
}

int PositiveMillis(absl::Duration duration) {
  return static_cast<int>(std::max<int64_t>(1, absl::ToInt64Milliseconds(duration)));
}

}  // namespace

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& address,
                                           const ChannelSecurity& security) {
  return grpc::CreateCustomChannel(address, security.credentials(), LimitedArguments());
}

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& address,
                                           const ChannelSecurity& security,
                                           const ReconnectBackoff& backoff) {
  grpc::ChannelArguments arguments = LimitedArguments();
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, PositiveMillis(backoff.initial));
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, PositiveMillis(backoff.max));
  return grpc::CreateCustomChannel(address, security.credentials(), arguments);
}

void SetTimeout(grpc::ClientContext& context, absl::Duration timeout) {
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
}

}  // namespace profdiff::rpc
