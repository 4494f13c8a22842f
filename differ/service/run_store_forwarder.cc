#include "differ/service/run_store_forwarder.h"

#include <atomic>
#include <memory>
#include <string>

#include <grpcpp/client_context.h>

#include "differ/service/store_call_deadline.h"
#include "rpc/status_conversion.h"

namespace profdiff::differ {
namespace {

// A client context that carries the client's deadline (capped) and cancellation
// to the aggregator.
std::unique_ptr<grpc::ClientContext> ForwardedContext(
    const grpc::CallbackServerContext& server_context,
    absl::Duration store_timeout) {
  std::unique_ptr<grpc::ClientContext> context =
      grpc::ClientContext::FromCallbackServerContext(server_context);
  context->set_deadline(
      absl::ToChronoTime(StoreCallDeadline(server_context, store_timeout)));
  return context;
}

grpc::Status FromAggregator(const StoredProfiles& store,
                            const grpc::Status& status) {
  if (status.ok()) return status;
  return rpc::ToGrpcStatus(store.Annotate(rpc::FromGrpcStatus(status)));
}

// Forwards one unary call; `call` starts it on the stub's callback API.
template <typename Request, typename Response, typename Call>
grpc::ServerUnaryReactor* ForwardUnary(
    grpc::CallbackServerContext* server_context, const StoredProfiles* store,
    absl::Duration store_timeout, const Request* request, Response* response,
    Call call) {
  grpc::ServerUnaryReactor* reactor = server_context->DefaultReactor();
  // The client context must live until the aggregator answers; std::function
  // wants a copyable capture, hence shared_ptr.
  std::shared_ptr<grpc::ClientContext> context =
      ForwardedContext(*server_context, store_timeout);
  grpc::ClientContext* raw_context = context.get();
  call(store->stub().async(), raw_context, request, response,
       [reactor, store, context = std::move(context)](grpc::Status status) {
         reactor->Finish(FromAggregator(*store, status));
       });
  return reactor;
}

// ExportTrace: reads a piece from the aggregator, writes it to the client, and
// only then reads the next, so at most one piece is held here whatever the
// trace's size. Two reactors share one object; it is deleted when both are
// done.
class ExportForwarder final
    : public grpc::ServerWriteReactor<v1::ExportTraceChunk> {
 public:
  ExportForwarder(const StoredProfiles* store,
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
    if (!ok) {
      context_->TryCancel();  // the client went away; the aggregator's OnDone
                              // finishes us
      return;
    }
    upstream_.StartRead(&piece_);
  }

  void OnCancel() override { context_->TryCancel(); }

  void OnDone() override { ReleaseOneSide(); }

 private:
  class Upstream final : public grpc::ClientReadReactor<v1::ExportTraceChunk> {
   public:
    explicit Upstream(ExportForwarder* owner) : owner_(owner) {}

    void OnReadDone(bool ok) override {
      // Not ok: the stream ended; OnDone brings its status.
      if (ok) owner_->StartWrite(&owner_->piece_);
    }

    void OnDone(const grpc::Status& status) override {
      ExportForwarder* owner = owner_;
      owner->Finish(FromAggregator(*owner->store_, status));
      owner->ReleaseOneSide();  // last: may delete the owner, and this with it
    }

   private:
    ExportForwarder* owner_;
  };

  void ReleaseOneSide() {
    if (sides_left_.fetch_sub(1) == 1) delete this;
  }

  const StoredProfiles* store_;
  const v1::ExportTraceRequest request_;
  std::unique_ptr<grpc::ClientContext> context_;
  Upstream upstream_;
  v1::ExportTraceChunk piece_;  // read into, then written out; one at a time
  std::atomic<int> sides_left_{2};
};

}  // namespace

grpc::ServerUnaryReactor* RunStoreForwarder::ListRuns(
    grpc::CallbackServerContext* context, const v1::ListRunsRequest* request,
    v1::ListRunsResponse* response) {
  return ForwardUnary(
      context, store_, store_timeout_, request, response,
      [](auto* async, auto... args) { async->ListRuns(args...); });
}

grpc::ServerUnaryReactor* RunStoreForwarder::GetRun(
    grpc::CallbackServerContext* context, const v1::GetRunRequest* request,
    v1::StoredRun* response) {
  return ForwardUnary(
      context, store_, store_timeout_, request, response,
      [](auto* async, auto... args) { async->GetRun(args...); });
}

grpc::ServerUnaryReactor* RunStoreForwarder::GetProfile(
    grpc::CallbackServerContext* context, const v1::GetProfileRequest* request,
    v1::RunProfile* response) {
  return ForwardUnary(
      context, store_, store_timeout_, request, response,
      [](auto* async, auto... args) { async->GetProfile(args...); });
}

grpc::ServerUnaryReactor* RunStoreForwarder::GetRunTables(
    grpc::CallbackServerContext* context,
    const v1::GetRunTablesRequest* request, v1::RunTables* response) {
  return ForwardUnary(
      context, store_, store_timeout_, request, response,
      [](auto* async, auto... args) { async->GetRunTables(args...); });
}

grpc::ServerWriteReactor<v1::ExportTraceChunk>* RunStoreForwarder::ExportTrace(
    grpc::CallbackServerContext* context,
    const v1::ExportTraceRequest* request) {
  // gRPC owns the reactor until OnDone (STYLE.md §8).
  return new ExportForwarder(store_, *context, store_timeout_, *request);
}

}  // namespace profdiff::differ
