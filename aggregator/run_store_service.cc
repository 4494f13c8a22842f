#include "aggregator/run_store_service.h"

#include <atomic>
#include <memory>
#include <string>

#include "aggregator/finish_on_pool.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "rpc/status_conversion.h"

namespace profdiff::aggregator {
namespace {

// Streams an export made piece by piece on the pool: the next piece is made
// only once the last one is written, so a reader that stalls holds one piece
// (and one stored chunk) here.
class ExportReactor final
    : public grpc::ServerWriteReactor<v1::ExportTraceChunk> {
 public:
  ExportReactor(const Store* store, base::ThreadPool* pool,
                std::atomic<int>* exports,
                const v1::ExportTraceRequest* request)
      : pool_(pool), exports_(exports) {
    if (exports_->fetch_add(1) >= RunStoreService::kMaxConcurrentExports) {
      Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          base::StrCat(RunStoreService::kMaxConcurrentExports,
                                       " exports are in progress, the limit; "
                                       "retry when one has ended")));
      return;
    }
    pool_->Post([this, store, request] {
      absl::StatusOr<std::unique_ptr<TraceExport>> made =
          store->ExportTrace(*request);
      if (!made.ok()) {
        Finish(rpc::ToGrpcStatus(made.status()));
        return;
      }
      export_ = std::move(made).value();
      WriteNext();
    });
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the client went away"));
      return;
    }
    pool_->Post([this] { WriteNext(); });
  }

  void OnDone() override {
    exports_->fetch_sub(1);
    delete this;
  }

 private:
  void WriteNext() {
    std::string piece;
    absl::StatusOr<bool> more =
        export_->NextPiece(RunStoreService::kExportPieceBytes, piece);
    if (!more.ok() || !*more) {
      Finish(rpc::ToGrpcStatus(more.status()));
      return;
    }
    *piece_.mutable_json() = std::move(piece);
    StartWrite(&piece_);
  }

  base::ThreadPool* const pool_;
  std::atomic<int>* const exports_;
  std::unique_ptr<TraceExport> export_;
  v1::ExportTraceChunk piece_;  // the write in flight
};

}  // namespace

grpc::ServerUnaryReactor* RunStoreService::ListRuns(
    grpc::CallbackServerContext* context, const v1::ListRunsRequest* request,
    v1::ListRunsResponse* response) {
  return FinishOnPool(context, pool_, response,
                      [this, request] { return store_->ListRuns(*request); });
}

grpc::ServerUnaryReactor* RunStoreService::GetRun(
    grpc::CallbackServerContext* context, const v1::GetRunRequest* request,
    v1::StoredRun* response) {
  return FinishOnPool(context, pool_, response, [this, request] {
    return store_->GetRun(request->run(), request->summary()
                                              ? RunDetail::kSummary
                                              : RunDetail::kWorkers);
  });
}

grpc::ServerUnaryReactor* RunStoreService::GetProfile(
    grpc::CallbackServerContext* context, const v1::GetProfileRequest* request,
    v1::RunProfile* response) {
  return FinishOnPool(context, pool_, response,
                      [this, request] { return store_->GetProfile(*request); });
}

grpc::ServerUnaryReactor* RunStoreService::GetRunDigest(
    grpc::CallbackServerContext* context,
    const v1::GetRunDigestRequest* request, v1::RunDigest* response) {
  return FinishOnPool(
      context, pool_, response,
      [this, request]() -> absl::StatusOr<v1::RunDigest> {
        PD_ASSIGN_OR_RETURN(std::shared_ptr<const v1::RunDigest> digest,
                            digests_->Get(*request));
        return *digest;  // a copy: the cached one stays for the next diff
      });
}

grpc::ServerWriteReactor<v1::ExportTraceChunk>* RunStoreService::ExportTrace(
    grpc::CallbackServerContext* /*context*/,
    const v1::ExportTraceRequest* request) {
  // gRPC owns the reactor until OnDone.
  return new ExportReactor(store_, pool_, &exports_, request);
}

}  // namespace profdiff::aggregator
