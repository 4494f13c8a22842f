#include "differ/service/run_store_forwarder.h"

#include <atomic>
#include <memory>
#include <string>

#include <absl/synchronization/mutex.h>
#include <grpcpp/client_context.h>

#include "differ/service/forward_unary.h"
#include "rpc/status_conversion.h"

namespace profdiff::differ {
namespace {

// ExportTrace: reads a piece from the aggregator, writes it to the client, and
// only then reads the next, so at most one piece is held here whatever the
// trace's size. Two reactors share one object; it is deleted when both are
// done.
class ExportForwarder final
    : public grpc::ServerWriteReactor<v1::ExportTraceChunk> {
 public:
  ExportForwarder(const StoredRuns* store,
                  const grpc::CallbackServerContext& server_context,
                  absl::Duration store_timeout,
                  const v1::ExportTraceRequest& request)
      : store_(store),
        request_(request),
        context_(ForwardedContext(server_context, store_timeout)),
        upstream_(this) {
    store_->stub().async()->ExportTrace(context_.get(), &request_, &upstream_);
    upstream_.StartRead(&piece_);
    upstream_.StartCall();
  }

  void OnWriteDone(bool ok) override {
    if (ok) {
      upstream_.StartRead(&piece_);
    } else {
      CancelUpstream();  // the client went away; the aggregator's OnDone
                         // finishes us
    }
    upstream_.RemoveHold();  // taken in OnReadDone; last: may end the upstream
  }

  void OnCancel() override { CancelUpstream(); }

  void OnDone() override { ReleaseOneSide(); }

 private:
  class Upstream final : public grpc::ClientReadReactor<v1::ExportTraceChunk> {
   public:
    explicit Upstream(ExportForwarder* owner) : owner_(owner) {}

    void OnReadDone(bool ok) override {
      // Not ok: the stream ended; OnDone brings its status.
      if (!ok) return;
      // The next read starts from the server side's OnWriteDone, outside this
      // stream's reactions: without a hold, the aggregator's status could end
      // this stream (OnDone, the context released, the call freed) while the
      // write is in flight, and that read would start on a freed call.
      AddHold();
      owner_->StartWrite(&owner_->piece_);
    }

    void OnDone(const grpc::Status& status) override {
      ExportForwarder* owner = owner_;
      // Released before the client's call finishes, as in ForwardUnary: the
      // context holds the channel, and this is one of gRPC's callback threads.
      owner->ReleaseContext();
      owner->Finish(FromAggregator(*owner->store_, status));
      owner->ReleaseOneSide();  // last: may delete the owner, and this with it
    }

   private:
    ExportForwarder* owner_;
  };

  void CancelUpstream() {
    const absl::MutexLock lock(&context_mu_);
    if (context_ != nullptr) context_->TryCancel();
  }

  void ReleaseContext() {
    const absl::MutexLock lock(&context_mu_);
    context_.reset();
  }

  void ReleaseOneSide() {
    if (sides_left_.fetch_sub(1) == 1) delete this;
  }

  const StoredRuns* store_;
  const v1::ExportTraceRequest request_;
  absl::Mutex context_mu_;  // the server side cancels while the client's ends
  std::unique_ptr<grpc::ClientContext> context_ ABSL_GUARDED_BY(context_mu_);
  Upstream upstream_;
  v1::ExportTraceChunk piece_;  // read into, then written out; one at a time
  std::atomic<int> sides_left_{2};
};

}  // namespace

grpc::ServerUnaryReactor* RunStoreForwarder::ListRuns(
    grpc::CallbackServerContext* context, const v1::ListRunsRequest* request,
    v1::ListRunsResponse* response) {
  return ForwardUnary(
      context, store_, store_->stub(), store_timeout_, request, response,
      [](auto* async, auto... args) { async->ListRuns(args...); });
}

grpc::ServerUnaryReactor* RunStoreForwarder::GetRun(
    grpc::CallbackServerContext* context, const v1::GetRunRequest* request,
    v1::StoredRun* response) {
  return ForwardUnary(
      context, store_, store_->stub(), store_timeout_, request, response,
      [](auto* async, auto... args) { async->GetRun(args...); });
}

grpc::ServerUnaryReactor* RunStoreForwarder::GetProfile(
    grpc::CallbackServerContext* context, const v1::GetProfileRequest* request,
    v1::RunProfile* response) {
  return ForwardUnary(
      context, store_, store_->stub(), store_timeout_, request, response,
      [](auto* async, auto... args) { async->GetProfile(args...); });
}

grpc::ServerUnaryReactor* RunStoreForwarder::GetRunDigest(
    grpc::CallbackServerContext* context,
    const v1::GetRunDigestRequest* request, v1::RunDigest* response) {
  return ForwardUnary(
      context, store_, store_->stub(), store_timeout_, request, response,
      [](auto* async, auto... args) { async->GetRunDigest(args...); });
}

grpc::ServerWriteReactor<v1::ExportTraceChunk>* RunStoreForwarder::ExportTrace(
    grpc::CallbackServerContext* context,
    const v1::ExportTraceRequest* request) {
  // gRPC owns the reactor until OnDone.
  return new ExportForwarder(store_, *context, store_timeout_, *request);
}

}  // namespace profdiff::differ
