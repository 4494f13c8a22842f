// Unary callback RPCs whose work may block (store reads, ControlStore
// queries): the work runs on a pool, never on gRPC's callback threads.
#ifndef PROFDIFF_AGGREGATOR_FINISH_ON_POOL_H_
#define PROFDIFF_AGGREGATOR_FINISH_ON_POOL_H_

#include <utility>

#include <absl/status/statusor.h>
#include <grpcpp/grpcpp.h>

#include "base/thread_pool.h"
#include "rpc/status_conversion.h"

namespace profdiff::aggregator {

// Runs `work` (returning absl::StatusOr<Response>) on `pool` and finishes the
// unary call with its result.
template <typename Response, typename Work>
grpc::ServerUnaryReactor* FinishOnPool(grpc::CallbackServerContext* context,
                                       base::ThreadPool* pool,
                                       Response* response, Work work) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  pool->Post([reactor, response, work = std::move(work)]() mutable {
    absl::StatusOr<Response> result = work();
    const grpc::Status status = rpc::ToGrpcStatus(result.status());
    if (result.ok()) *response = std::move(result).value();
    reactor->Finish(status);
  });
  return reactor;
}

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_FINISH_ON_POOL_H_
