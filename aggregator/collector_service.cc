#include "aggregator/collector_service.h"

#include <memory>
#include <optional>

#include "base/log.h"
#include "base/status_macros.h"
#include "base/status_annotate.h"
#include "base/str_cat.h"
#include "rpc/status_conversion.h"

namespace profdiff::aggregator {
namespace {

// Per-stream state. gRPC calls On* one at a time, and this reactor keeps exactly one
// operation (a read, the handling of what was read, or the ack's write) in flight, so its
// members need no lock.
class UploadReactor final : public grpc::ServerBidiReactor<v1::UploadMessage, v1::UploadAck> {
 public:
  UploadReactor(Store* store, base::ThreadPool* io_pool, base::ThreadPool* build_pool,
                OpenStreams* open_streams)
      : store_(store), io_pool_(io_pool), build_pool_(build_pool), open_streams_(open_streams) {
    StartRead(&message_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      // The agent half-closed (after its span closed) or went away; it resumes later if not.
      lease_.reset();
      Finish(span_closed_ ? grpc::Status::OK
                          : grpc::Status(grpc::StatusCode::CANCELLED,
                                         "upload ended before the span's end; resume it"));
      return;
    }
    base::ThreadPool* pool = message_.has_end() ? build_pool_ : io_pool_;
    pool->Post([this] { HandleMessage(); });
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      lease_.reset();
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "the agent went away"));
      return;
    }
    StartRead(&message_);
  }

  void OnDone() override { delete this; }

 private:
  void HandleMessage() {
    absl::Status status = Handle();
    if (!status.ok()) {
      if (!span_.empty()) status = base::Annotate(status, span_);
      PD_LOG(WARNING, "upload refused %s", status.ToString());
      lease_.reset();
      Finish(rpc::ToGrpcStatus(status));
      return;
    }
    StartWrite(&ack_);
  }

  absl::Status Handle() {
    ack_.Clear();
    switch (message_.body_case()) {
      case v1::UploadMessage::kHeader: {
        if (!span_.empty()) {
          return absl::InvalidArgumentError("a second UploadHeader: one stream uploads one span");
        }
        const v1::UploadHeader& header = message_.header();
        span_ = base::StrCat("run ", header.run(), " worker ", header.worker().rank(), ".",
                             header.worker().worker_name(), " span ", header.span());
        PD_ASSIGN_OR_RETURN(OpenStreams::Slot slot, open_streams_->Acquire(header.agent_id()));
        slot_.emplace(std::move(slot));
        PD_ASSIGN_OR_RETURN(Store::OpenedSpan opened, store_->OpenSpan(header));
        lease_ = std::move(opened.lease);
        span_closed_ = opened.closed;
        ack_.set_durable_sequence(opened.durable_sequence);
        ack_.set_span_closed(opened.closed);
        PD_LOG(INFO, "span open %s agent=%s resume=%d durable_sequence=%d closed=%d", span_,
               header.agent_id(), header.resume(), opened.durable_sequence, opened.closed);
        return absl::OkStatus();
      }
      case v1::UploadMessage::kChunk: {
        PD_RETURN_IF_ERROR(CheckSpanOpen("TraceChunk"));
        PD_ASSIGN_OR_RETURN(const int64_t durable, store_->AppendChunk(*lease_, message_.chunk()));
        ack_.set_durable_sequence(durable);
        PD_VLOG(1, "chunk durable %s sequence=%d", span_, durable);
        return absl::OkStatus();
      }
      case v1::UploadMessage::kEnd: {
        PD_RETURN_IF_ERROR(CheckSpanOpen("SpanEnd"));
        PD_RETURN_IF_ERROR(store_->CloseSpan(*lease_, message_.end()));
        span_closed_ = true;
        ack_.set_durable_sequence(static_cast<int64_t>(message_.end().chunk_count()) - 1);
        ack_.set_span_closed(true);
        PD_LOG(INFO, "span closed %s chunks=%d events=%d", span_, message_.end().chunk_count(),
               message_.end().event_count());
        return absl::OkStatus();
      }
      case v1::UploadMessage::BODY_NOT_SET:
        break;
    }
    return absl::InvalidArgumentError("an UploadMessage with no header, chunk or end");
  }

  absl::Status CheckSpanOpen(std::string_view what) const {
    if (span_.empty()) {
      return absl::InvalidArgumentError(base::StrCat(
          what, " for an unknown span: the first message of an upload must be an UploadHeader"));
    }
    if (span_closed_) {
      return absl::FailedPreconditionError(base::StrCat(what, " after the span was closed"));
    }
    return absl::OkStatus();
  }

  Store* store_;
  base::ThreadPool* io_pool_;
  base::ThreadPool* build_pool_;
  OpenStreams* open_streams_;
  std::optional<OpenStreams::Slot> slot_;  // held from the header until the reactor is done
  v1::UploadMessage message_;
  v1::UploadAck ack_;
  std::string span_;  // "run R worker K span S", once the header came
  std::unique_ptr<Store::SpanLease> lease_;
  bool span_closed_ = false;
};

}  // namespace

grpc::ServerBidiReactor<v1::UploadMessage, v1::UploadAck>* CollectorService::Upload(
    grpc::CallbackServerContext* /*context*/) {
  // gRPC owns the reactor until OnDone (STYLE.md §8: the only new/delete this in the code).
  return new UploadReactor(store_, io_pool_, build_pool_, &open_streams_);
}

}  // namespace profdiff::aggregator
