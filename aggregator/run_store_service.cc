#include "aggregator/run_store_service.h"

#include <string>

#include "rpc/status_conversion.h"

namespace profdiff::aggregator {
namespace {

// Runs `read` on the pool and finishes the unary call with its result.
template <typename Response, typename Read>
grpc::ServerUnaryReactor* FinishOnPool(grpc::CallbackServerContext* context, base::ThreadPool* pool,
                                       Response* response, Read read) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  pool->Post([reactor, response, read = std::move(read)]() mutable {
    absl::StatusOr<Response> result = read();
    if (result.ok()) *response = std::move(result).value();
    reactor->Finish(rpc::ToGrpcStatus(result.status()));
  });
  return reactor;
}

// Streams a finished JSON document in pieces; one write in flight.
class ExportReactor final : public grpc::ServerWriteReactor<v1::ExportTraceChunk> {
 public:
  ExportReactor(const Store* store, base::ThreadPool* pool, const v1::ExportTraceRequest* request) {
    pool->Post([this, store, request] {
      absl::StatusOr<std::string> json = store->ExportTrace(*request);
      if (!json.ok()) {
        Finish(rpc::ToGrpcStatus(json.status()));
        return;
      }
      json_ = std::move(json).value();
      WriteNext();
    });
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
      return;
    }
    WriteNext();
  }

  void OnDone() override { delete this; }

 private:
  void WriteNext() {
    if (offset_ >= json_.size()) {
      Finish(grpc::Status::OK);
      return;
    }
    const size_t size = std::min(RunStoreService::kExportPieceBytes, json_.size() - offset_);
    piece_.set_json(json_.substr(offset_, size));
    offset_ += size;
    StartWrite(&piece_);
  }

  std::string json_;
  size_t offset_ = 0;
  v1::ExportTraceChunk piece_;
};

}  // namespace

grpc::ServerUnaryReactor* RunStoreService::ListRuns(grpc::CallbackServerContext* context,
                                                    const v1::ListRunsRequest* request,
                                                    v1::ListRunsResponse* response) {
  return FinishOnPool(context, pool_, response, [this, request] { return store_->ListRuns(*request); });
}

grpc::ServerUnaryReactor* RunStoreService::GetRun(grpc::CallbackServerContext* context,
                                                  const v1::GetRunRequest* request,
                                                  v1::StoredRun* response) {
  return FinishOnPool(context, pool_, response, [this, request] { return store_->GetRun(request->run()); });
}

grpc::ServerUnaryReactor* RunStoreService::GetProfile(grpc::CallbackServerContext* context,
                                                      const v1::GetProfileRequest* request,
                                                      v1::RunProfile* response) {
  return FinishOnPool(context, pool_, response,
                      [this, request] { return store_->GetProfile(*request); });
}

grpc::ServerUnaryReactor* RunStoreService::GetRunTables(grpc::CallbackServerContext* context,
                                                        const v1::GetRunTablesRequest* request,
                                                        v1::RunTables* response) {
  return FinishOnPool(context, pool_, response,
                      [this, request] { return store_->GetRunTables(*request); });
}

grpc::ServerWriteReactor<v1::ExportTraceChunk>* RunStoreService::ExportTrace(
    grpc::CallbackServerContext* /*context*/, const v1::ExportTraceRequest* request) {
  // gRPC owns the reactor until OnDone (STYLE.md §8).
  return new ExportReactor(store_, pool_, request);
}

}  // namespace profdiff::aggregator
