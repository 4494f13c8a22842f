// The RunStore gRPC service: ListRuns, GetRun, GetProfile, GetRunDigest and
// ExportTrace over a Store (any backend).
#ifndef PROFDIFF_AGGREGATOR_RUN_STORE_SERVICE_H_
#define PROFDIFF_AGGREGATOR_RUN_STORE_SERVICE_H_

#include <atomic>

#include "aggregator/run_digests.h"
#include "aggregator/store/store.h"
#include "base/thread_pool.h"
#include "profdiff/v1/run_store.grpc.pb.h"

namespace profdiff::aggregator {

// Every read runs on `pool` (it may read segments and build profiles).
// ExportTrace streams the JSON in pieces of about kExportPieceBytes, each made
// once the last is written, so an export holds one decoded stored chunk (~20
// MiB at the agent's default 65,536 events per chunk) however slowly it is
// read; at most kMaxConcurrentExports run at once (more are
// RESOURCE_EXHAUSTED), which bounds what stalled readers can hold. Digests come
// from `digests` (cached, made ahead). `store`, `digests` and `pool` must
// outlive the service.
class RunStoreService final : public v1::RunStore::CallbackService {
 public:
  static constexpr size_t kExportPieceBytes = 1 << 20;
  static constexpr int kMaxConcurrentExports = 16;

  RunStoreService(const Store* store, RunDigests* digests,
                  base::ThreadPool* pool)
      : store_(store), digests_(digests), pool_(pool) {}

  grpc::ServerUnaryReactor* ListRuns(grpc::CallbackServerContext* context,
                                     const v1::ListRunsRequest* request,
                                     v1::ListRunsResponse* response) override;
  grpc::ServerUnaryReactor* GetRun(grpc::CallbackServerContext* context,
                                   const v1::GetRunRequest* request,
                                   v1::StoredRun* response) override;
  grpc::ServerUnaryReactor* GetProfile(grpc::CallbackServerContext* context,
                                       const v1::GetProfileRequest* request,
                                       v1::RunProfile* response) override;
  grpc::ServerUnaryReactor* GetRunDigest(grpc::CallbackServerContext* context,
                                         const v1::GetRunDigestRequest* request,
                                         v1::RunDigest* response) override;
  grpc::ServerWriteReactor<v1::ExportTraceChunk>* ExportTrace(
      grpc::CallbackServerContext* context,
      const v1::ExportTraceRequest* request) override;

 private:
  const Store* store_;
  RunDigests* digests_;
  base::ThreadPool* pool_;
  std::atomic<int> exports_{0};  // ExportTrace calls in progress
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_RUN_STORE_SERVICE_H_
