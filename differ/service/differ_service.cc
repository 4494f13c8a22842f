#include "differ/service/differ_service.h"

#include "differ/service/store_call_deadline.h"
#include "differ/service/store_differ.h"
#include "rpc/status_conversion.h"

namespace profdiff::differ {

grpc::ServerUnaryReactor* DifferService::Diff(
    grpc::CallbackServerContext* context, const v1::DiffRequest* request,
    v1::DiffReport* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const absl::Time deadline = StoreCallDeadline(*context, store_timeout_);
  pool_->Post([this, context, reactor, request, response, deadline] {
    // A client that went away (or a server shutting down) while this waited for
    // a thread.
    if (context->IsCancelled()) {
      reactor->Finish(grpc::Status(grpc::StatusCode::CANCELLED,
                                   "cancelled before the diff started"));
      return;
    }
    absl::StatusOr<v1::DiffReport> report =
        DiffStoredRuns(*store_, *request, deadline);
    if (report.ok()) *response = std::move(report).value();
    reactor->Finish(rpc::ToGrpcStatus(report.status()));
  });
  return reactor;
}

}  // namespace profdiff::differ
