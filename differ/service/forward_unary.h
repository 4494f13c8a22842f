// Calls the differ passes on to the aggregator (RunStore reads, Agents
// captures): the client's deadline (capped) and cancellation carry over, the
// aggregator's errors come back prefixed "aggregator ADDR: ", and no thread
// waits: the aggregator's answer finishes the client's call from gRPC's
// callback.
#ifndef PROFDIFF_DIFFER_SERVICE_FORWARD_UNARY_H_
#define PROFDIFF_DIFFER_SERVICE_FORWARD_UNARY_H_

#include <memory>
#include <utility>

#include <absl/time/time.h>
#include <grpcpp/grpcpp.h>

#include "differ/service/store_call_deadline.h"
#include "differ/service/stored_runs.h"
#include "rpc/status_conversion.h"

namespace profdiff::differ {

// A client context that carries the client's deadline (capped) and cancellation
// to the aggregator.
inline std::unique_ptr<grpc::ClientContext> ForwardedContext(
    const grpc::CallbackServerContext& server_context,
    absl::Duration store_timeout) {
  std::unique_ptr<grpc::ClientContext> context =
      grpc::ClientContext::FromCallbackServerContext(server_context);
  context->set_deadline(
      absl::ToChronoTime(StoreCallDeadline(server_context, store_timeout)));
  return context;
}

inline grpc::Status FromAggregator(const StoredRuns& store,
                                   const grpc::Status& status) {
  if (status.ok()) return status;
  return rpc::ToGrpcStatus(store.Annotate(rpc::FromGrpcStatus(status)));
}

// Forwards one unary call; `call` starts it on the stub's callback API.
template <typename Stub, typename Request, typename Response, typename Call>
grpc::ServerUnaryReactor* ForwardUnary(
    grpc::CallbackServerContext* server_context, const StoredRuns* store,
    Stub& stub, absl::Duration store_timeout, const Request* request,
    Response* response, Call call) {
  grpc::ServerUnaryReactor* reactor = server_context->DefaultReactor();
  // The client context must live until the aggregator answers, and be gone
  // before the client's call is finished: it holds a reference to the
  // channel, and were the differ stopped once the client's call finished, the
  // context would hold the channel's last reference; releasing that on one of
  // gRPC's callback threads makes gRPC 1.51 join the very thread it runs on
  // (an abort, "ref_counted.h: prior > 0", at its next poll). Copies of the
  // callback may outlive it (gRPC's own, while `call` returns), so the client's
  // call is finished by the context's deleter, after the last copy lets go.
  auto answer = std::make_shared<grpc::Status>(grpc::StatusCode::INTERNAL,
                                               "the aggregator gave no answer");
  std::shared_ptr<grpc::ClientContext> context(
      ForwardedContext(*server_context, store_timeout).release(),
      [reactor, answer](grpc::ClientContext* done) {
        std::default_delete<grpc::ClientContext>()(done);
        reactor->Finish(*answer);
      });
  grpc::ClientContext* raw_context = context.get();
  call(stub.async(), raw_context, request, response,
       [store, answer,
        context = std::move(context)](const grpc::Status& status) mutable {
         *answer = FromAggregator(*store, status);
         context.reset();
       });
  return reactor;
}

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SERVICE_FORWARD_UNARY_H_
