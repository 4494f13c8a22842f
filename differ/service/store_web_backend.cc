#include "differ/service/store_web_backend.h"

#include <memory>

#include <grpcpp/grpcpp.h>

#include "base/log.h"
#include "differ/service/store_differ.h"
#include "rpc/status_conversion.h"

namespace profdiff::differ {
namespace {

// One unary RunStore call to the aggregator, its error naming it.
template <typename Request, typename Response>
absl::StatusOr<Response> Unary(
    const StoredRuns& store,
    grpc::Status (v1::RunStore::Stub::*call)(grpc::ClientContext*,
                                             const Request&, Response*),
    const Request& request, absl::Time deadline) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(deadline));
  Response response;
  const absl::Status status =
      rpc::FromGrpcStatus((store.stub().*call)(&context, request, &response));
  if (!status.ok()) return store.Annotate(status);
  return response;
}

// An ExportTrace stream held open while the page's body is sent.
struct TraceStream {
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::ExportTraceChunk>> reader;
  v1::ExportTraceChunk first;
  bool has_first = false;
  bool finished = false;

  // A download the browser left (or a HEAD request) ends the call.
  ~TraceStream() {
    if (finished) return;
    context.TryCancel();
    (void)reader->Finish();
  }

  // The next piece; an error mid-way is logged and cuts the download off
  // (the status line has gone out already).
  web::StreamStep Next(std::string& out) {
    if (has_first) {
      has_first = false;
      out = std::move(*first.mutable_json());
      return web::StreamStep::kMore;
    }
    if (finished) return web::StreamStep::kEnd;
    v1::ExportTraceChunk chunk;
    if (reader->Read(&chunk)) {
      out = std::move(*chunk.mutable_json());
      return web::StreamStep::kMore;
    }
    finished = true;
    const grpc::Status status = reader->Finish();
    if (status.ok()) return web::StreamStep::kEnd;
    PD_LOG(WARNING, "trace export cut short: %s", status.error_message());
    return web::StreamStep::kFailed;
  }
};

}  // namespace

absl::StatusOr<v1::ListRunsResponse> StoreWebBackend::ListRuns(
    const v1::ListRunsRequest& request, absl::Time deadline) {
  return Unary(*store_, &v1::RunStore::Stub::ListRuns, request, deadline);
}

absl::StatusOr<v1::StoredRun> StoreWebBackend::GetRun(const std::string& run,
                                                      bool summary,
                                                      absl::Time deadline) {
  v1::GetRunRequest request;
  request.set_run(run);
  request.set_summary(summary);
  return Unary(*store_, &v1::RunStore::Stub::GetRun, request, deadline);
}

absl::StatusOr<v1::RunDigest> StoreWebBackend::GetDigest(const std::string& run,
                                                         absl::Time deadline) {
  RunKey key;
  key.run = run;
  absl::StatusOr<StoredDigest> stored = store_->FetchDigest(key, deadline);
  if (!stored.ok()) return stored.status();
  return *stored->digest;
}

absl::StatusOr<v1::DiffReport> StoreWebBackend::Diff(
    const v1::DiffRequest& request, absl::Time deadline) {
  return DiffStoredRuns(*store_, request, deadline);
}

absl::StatusOr<web::BodyStream> StoreWebBackend::ExportTrace(
    const v1::ExportTraceRequest& request) {
  auto stream = std::make_shared<TraceStream>();
  stream->reader = store_->stub().ExportTrace(&stream->context, request);
  // The first piece decides the status: an unknown run or worker is an error
  // page, not an empty download.
  if (stream->reader->Read(&stream->first)) {
    stream->has_first = true;
  } else {
    stream->finished = true;
    const absl::Status status = rpc::FromGrpcStatus(stream->reader->Finish());
    if (!status.ok()) return store_->Annotate(status);
  }
  return web::BodyStream(
      [stream](std::string& out) { return stream->Next(out); });
}

}  // namespace profdiff::differ
