#include "client/run_store_client.h"

#include <charconv>
#include <cstdlib>

#include "base/status_annotate.h"
#include "base/str_cat.h"
#include "rpc/channel.h"
#include "rpc/status_conversion.h"

namespace profdiff::client {
namespace {

// The differ's default (differ/service/differ_server.h).
constexpr char kDefaultServer[] = "localhost:50051";

// A worker given as a number is a rank, else a worker name.
void SelectWorker(const std::string& worker, v1::WorkerSelector& selector) {
  int rank = 0;
  const auto [end, error] =
      std::from_chars(worker.data(), worker.data() + worker.size(), rank);
  if (!worker.empty() && error == std::errc() &&
      end == worker.data() + worker.size()) {
    selector.set_rank(rank);
  } else {
    selector.set_worker_name(worker);
  }
}

}  // namespace

std::string DefaultServerAddress() {
  const char* env = std::getenv("PROFDIFF_SERVER");
  return env != nullptr && *env != '\0' ? env : kDefaultServer;
}

RequestGroupings GroupingsOf(const analysis::ProfileOptions& options) {
  RequestGroupings groupings;
  if (options.operator_grouping == analysis::OperatorGrouping::kNameAndShape) {
    groupings.operators = v1::GROUPING_NAME_AND_SHAPE;
  }
  if (options.kernel_grouping == analysis::KernelGrouping::kNameAndOp) {
    groupings.kernels = v1::GROUPING_NAME_AND_OP;
  }
  return groupings;
}

RunStoreClient::RunStoreClient(const std::string& address,
                               const rpc::ChannelSecurity& security,
                               absl::Duration timeout)
    : address_(address),
      timeout_(timeout),
      stub_(v1::RunStore::NewStub(rpc::MakeChannel(address, security))) {}

absl::Status RunStoreClient::Annotate(const absl::Status& status) const {
  return base::Annotate(status, base::StrCat("server ", address_));
}

absl::StatusOr<std::vector<v1::StoredRun>> RunStoreClient::ListRuns(
    const std::string& filter) {
  std::vector<v1::StoredRun> runs;
  v1::ListRunsRequest request;
  request.set_filter(filter);
  do {
    grpc::ClientContext context;
    rpc::SetTimeout(context, timeout_);
    v1::ListRunsResponse response;
    if (absl::Status status =
            rpc::FromGrpcStatus(stub_->ListRuns(&context, request, &response));
        !status.ok()) {
      return Annotate(status);
    }
    for (v1::StoredRun& run : *response.mutable_runs())
      runs.push_back(std::move(run));
    request.set_page_token(response.next_page_token());
  } while (!request.page_token().empty());
  return runs;
}

absl::StatusOr<v1::StoredRun> RunStoreClient::GetRun(const std::string& run) {
  grpc::ClientContext context;
  rpc::SetTimeout(context, timeout_);
  v1::GetRunRequest request;
  request.set_run(run);
  v1::StoredRun response;
  if (absl::Status status =
          rpc::FromGrpcStatus(stub_->GetRun(&context, request, &response));
      !status.ok()) {
    return Annotate(status);
  }
  return response;
}

absl::StatusOr<v1::RunProfile> RunStoreClient::GetProfile(
    const std::string& run, const analysis::ProfileOptions& options) {
  grpc::ClientContext context;
  rpc::SetTimeout(context, timeout_);
  v1::GetProfileRequest request;
  request.set_run(run);
  const RequestGroupings groupings = GroupingsOf(options);
  request.set_operator_grouping(groupings.operators);
  request.set_kernel_grouping(groupings.kernels);
  v1::RunProfile response;
  if (absl::Status status =
          rpc::FromGrpcStatus(stub_->GetProfile(&context, request, &response));
      !status.ok()) {
    return Annotate(status);
  }
  return response;
}

absl::StatusOr<std::string> RunStoreClient::ExportTrace(
    const std::string& run, const std::string& worker,
    const std::string& span) {
  grpc::ClientContext context;
  rpc::SetTimeout(context, timeout_);
  v1::ExportTraceRequest request;
  request.set_run(run);
  SelectWorker(worker, *request.mutable_worker());
  request.set_span(span);
  std::unique_ptr<grpc::ClientReader<v1::ExportTraceChunk>> reader =
      stub_->ExportTrace(&context, request);
  std::string json;
  v1::ExportTraceChunk piece;
  while (reader->Read(&piece)) json += piece.json();
  if (absl::Status status = rpc::FromGrpcStatus(reader->Finish());
      !status.ok()) {
    return Annotate(status);
  }
  return json;
}

}  // namespace profdiff::client
