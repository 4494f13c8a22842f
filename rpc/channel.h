// Client channels to profdiff servers, with the same message limits as the servers, and the
// deadline every call carries (STYLE.md §8).
#ifndef PROFDIFF_RPC_CHANNEL_H_
#define PROFDIFF_RPC_CHANNEL_H_

#include <memory>
#include <string>

#include <absl/time/time.h>
#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

namespace profdiff::rpc {

// A plaintext channel to "HOST:PORT". Connects lazily; nothing fails here.
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& address);

// Sets `context`'s deadline to now + `timeout`.
void SetTimeout(grpc::ClientContext& context, absl::Duration timeout);

}  // namespace profdiff::rpc

#endif  // PROFDIFF_RPC_CHANNEL_H_
