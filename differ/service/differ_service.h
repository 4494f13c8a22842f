// The Differ gRPC service: Diff of two stored runs, DiffMany of several
// against one. The work (fetches, the diff) runs on a thread pool so gRPC's
// callback threads never block.
#ifndef PROFDIFF_DIFFER_SERVICE_DIFFER_SERVICE_H_
#define PROFDIFF_DIFFER_SERVICE_DIFFER_SERVICE_H_

#include <absl/time/time.h>

#include "base/thread_pool.h"
#include "differ/service/stored_runs.h"
#include "profdiff/v1/differ.grpc.pb.h"

namespace profdiff::differ {

// `store` and `pool` must outlive the service.
class DifferService final : public v1::Differ::CallbackService {
 public:
  DifferService(const StoredRuns* store, base::ThreadPool* pool,
                absl::Duration store_timeout)
      : store_(store), pool_(pool), store_timeout_(store_timeout) {}

  grpc::ServerUnaryReactor* Diff(grpc::CallbackServerContext* context,
                                 const v1::DiffRequest* request,
                                 v1::DiffReport* response) override;
  grpc::ServerUnaryReactor* DiffMany(grpc::CallbackServerContext* context,
                                     const v1::DiffManyRequest* request,
                                     v1::MultiDiffReport* response) override;
  // The most experimental runs one DiffMany takes.
  static constexpr int kMaxExperimentalRuns = 16;

 private:
  const StoredRuns* store_;
  base::ThreadPool* pool_;
  absl::Duration store_timeout_;
};

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SERVICE_DIFFER_SERVICE_H_
