// The RunStore service on the differ's address: every read is forwarded to the
// aggregator, so `profdiff runs|show|export` need only the differ's address. No
// thread waits on a forwarded call: the aggregator's answer finishes the
// client's call from gRPC's callback.
#ifndef PROFDIFF_DIFFER_SERVICE_RUN_STORE_FORWARDER_H_
#define PROFDIFF_DIFFER_SERVICE_RUN_STORE_FORWARDER_H_

#include <absl/time/time.h>

#include "differ/service/stored_runs.h"
#include "profdiff/v1/run_store.grpc.pb.h"

namespace profdiff::differ {

// Errors are the aggregator's, prefixed "aggregator ADDR: ". The client's
// deadline and cancellation carry over to the forwarded call, capped at
// `store_timeout`. `store` must outlive the service.
class RunStoreForwarder final : public v1::RunStore::CallbackService {
 public:
  RunStoreForwarder(const StoredRuns* store, absl::Duration store_timeout)
      : store_(store), store_timeout_(store_timeout) {}

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
  const StoredRuns* store_;
  absl::Duration store_timeout_;
};

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SERVICE_RUN_STORE_FORWARDER_H_
