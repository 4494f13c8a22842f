#include "differ/service/differ_service.h"

#include "base/str_cat.h"
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
    const grpc::Status status = rpc::ToGrpcStatus(report.status());
    if (report.ok()) *response = *std::move(report);
    reactor->Finish(status);
  });
  return reactor;
}

grpc::ServerUnaryReactor* DifferService::DiffMany(
    grpc::CallbackServerContext* context, const v1::DiffManyRequest* request,
    v1::MultiDiffReport* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const int runs = request->experimental_runs_size();
  if (runs < 1 || runs > kMaxExperimentalRuns) {
    reactor->Finish(grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        base::StrCat("experimental_runs: ", runs, " runs; expected 1 to ",
                     kMaxExperimentalRuns)));
    return reactor;
  }
  const absl::Time deadline = StoreCallDeadline(*context, store_timeout_);
  pool_->Post([this, context, reactor, request, response, deadline] {
    v1::MultiDiffReport reports;
    for (const std::string& experimental : request->experimental_runs()) {
      if (context->IsCancelled()) {
        reactor->Finish(
            grpc::Status(grpc::StatusCode::CANCELLED, "cancelled mid-way"));
        return;
      }
      v1::DiffRequest pair;
      pair.set_baseline_run(request->baseline_run());
      pair.set_experimental_run(experimental);
      *pair.mutable_options() = request->options();
      pair.set_operator_grouping(request->operator_grouping());
      pair.set_kernel_grouping(request->kernel_grouping());
      absl::StatusOr<v1::DiffReport> report =
          DiffStoredRuns(*store_, pair, deadline);
      if (!report.ok()) {
        reactor->Finish(rpc::ToGrpcStatus(report.status()));
        return;
      }
      *reports.add_reports() = std::move(report).value();
    }
    *response = std::move(reports);
    reactor->Finish(grpc::Status::OK);
  });
  return reactor;
}

}  // namespace profdiff::differ
