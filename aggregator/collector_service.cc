#include "aggregator/collector_service.h"

#include <deque>
#include <memory>
#include <optional>

#include <absl/base/thread_annotations.h>
#include <absl/functional/any_invocable.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

#include "aggregator/store/upload_rules.h"
#include "base/log.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "rpc/limits.h"
#include "rpc/status_conversion.h"

namespace profdiff::aggregator {
namespace {

// Per-stream state. Messages are handled one at a time, in order: the next read
// starts once a message is handled. A chunk is handled once the store has taken
// it (StartAppendChunk), not once it is durable, so up to kChunksInFlight
// chunks of a stream are being stored together (the ClickHouse store commits
// them in groups); their acks go out in sequence order as they become durable.
// A span's end waits for its chunks. Reactions come on gRPC threads, handling
// on the pools, store answers on the store's threads: the state is under `mu_`,
// and gRPC operations start after it is released.
class UploadReactor final
    : public grpc::ServerBidiReactor<v1::UploadMessage, v1::UploadAck>,
      public IdleStream {
 public:
  UploadReactor(Store* store, base::ThreadPool* io_pool,
                base::ThreadPool* build_pool, const CollectorHooks* hooks,
                OpenStreams* open_streams, UploadStreams* upload_streams)
      : store_(store),
        io_pool_(io_pool),
        build_pool_(build_pool),
        hooks_(hooks),
        open_streams_(open_streams),
        upload_streams_(upload_streams) {
    if (!upload_streams_->Add(this)) {
      upload_streams_ = nullptr;  // not registered
      {
        absl::MutexLock lock(&mu_);
        reading_ = false;
        finished_ = true;
      }
      // Unavailable: agents retry it with backoff, as for the per-agent limit.
      Finish(grpc::Status(
          grpc::StatusCode::UNAVAILABLE,
          base::StrCat(
              "the aggregator serves ", upload_streams->max_streams(),
              " upload streams at once (--max-streams); retry once one ends")));
      return;
    }
    StartRead(&message_);
  }

  void OnReadDone(bool ok) override {
    Actions actions;
    bool waits = false;
    {
      absl::MutexLock lock(&mu_);
      reading_ = false;
      last_progress_ = absl::Now();
      if (finished_)
        return;  // Finish cancelled the read, or a message came too late
      if (ok) {
        handling_ = true;
        base::ThreadPool* pool = message_.has_end() ? build_pool_ : io_pool_;
        pool->Post([this] { HandleMessage(); });
        return;
      }
      // The agent half-closed (after its span closed) or went away; it resumes
      // later if not.
      read_ended_ = true;
      waits = in_flight_ > 0;
      actions = Decide();
    }
    if (waits) Notify(hooks_->read_ended_with_chunks_in_flight);
    Act(std::move(actions));
  }

  static void Notify(const std::function<void()>& hook) {
    if (hook) hook();
  }

  void OnWriteDone(bool ok) override {
    Actions actions;
    {
      absl::MutexLock lock(&mu_);
      writing_ = false;
      last_progress_ = absl::Now();
      if (!ok) Fail(absl::CancelledError("the agent went away"));
      actions = Decide();
    }
    Act(std::move(actions));
  }

  void OnDone() override {
    if (upload_streams_ != nullptr) upload_streams_->Remove(this);
    const CollectorHooks* hooks = hooks_;
    delete this;  // releases the span's lease
    Notify(hooks->stream_done);
  }

  absl::AnyInvocable<void()> ExpireIfIdle(absl::Time now,
                                          absl::Duration idle) override {
    std::unique_ptr<Store::SpanLease> lease;
    grpc::Status status;
    {
      absl::MutexLock lock(&mu_);
      // Only a stream waiting on its client: one the store is working for is
      // not idle.
      const bool waiting = (reading_ || writing_) && !handling_ &&
                           in_flight_ == 0 && starting_ == 0;
      if (finished_ || !waiting || now - last_progress_ < idle) return nullptr;
      finished_ = true;
      error_ = absl::DeadlineExceededError(
          base::StrCat("no message from the agent for ",
                       absl::FormatDuration(now - last_progress_),
                       " (--stream-idle-timeout ", absl::FormatDuration(idle),
                       "); the stream is ended, resume it"));
      if (!span_.empty()) error_ = base::Annotate(*error_, span_);
      PD_VLOG(1, "upload stream idle: %s", error_->message());
      lease = std::move(lease_);
      status = rpc::ToGrpcStatus(*error_);
    }
    return
        [this, status = std::move(status), lease = std::move(lease)]() mutable {
          lease.reset();  // released outside any lock: it may wait on the store
          Finish(std::move(status));
        };
  }

 private:
  // As many as an agent sends unacknowledged by default.
  static constexpr int kChunksInFlight = rpc::kDefaultUploadWindowChunks;

  // What to do once `mu_` is released.
  struct Actions {
    bool read = false;
    bool write = false;
    bool close_span = false;
    std::optional<grpc::Status> finish;
    std::unique_ptr<Store::SpanLease>
        lease;  // the lease to release before finishing
  };

  void HandleMessage() {
    switch (message_.body_case()) {
      case v1::UploadMessage::kHeader:
        return Handled(OpenSpan());
      case v1::UploadMessage::kChunk:
        return Handled(StartChunk());
      case v1::UploadMessage::kEnd: {
        const absl::Status status = CheckSpanOpen("SpanEnd");
        bool chunks_in_flight = false;
        {
          absl::MutexLock lock(&mu_);
          chunks_in_flight = in_flight_ > 0 && !error_.has_value();
        }
        // The store may close the span with the write of its last chunk,
        // still in flight (no write of its own); `Closed` then runs after
        // that chunk's answer.
        Store::CloseDone closed = [this](const absl::Status& result) {
          Closed(result);
        };
        if (status.ok() && chunks_in_flight &&
            store_->TryCloseWithLastChunk(*lease_, message_.end(), closed)) {
          return;
        }
        Actions actions;
        bool waits = false;
        {
          absl::MutexLock lock(&mu_);
          if (!status.ok()) {
            handling_ = false;
            Fail(status);
          } else {
            end_waiting_ = true;  // closed once no chunk is in flight
            waits = in_flight_ > 0;
          }
          actions = Decide();
        }
        if (waits) Notify(hooks_->end_waits_for_chunks);
        return Act(std::move(actions));
      }
      case v1::UploadMessage::BODY_NOT_SET:
        break;
    }
    Handled(absl::InvalidArgumentError(
        "an UploadMessage with no header, chunk or end"));
  }

  // The end of handling a header or chunk: read on, unless it failed.
  void Handled(const absl::Status& status) {
    Actions actions;
    {
      absl::MutexLock lock(&mu_);
      handling_ = false;
      if (!status.ok()) Fail(status);
      actions = Decide();
    }
    Act(std::move(actions));
  }

  absl::Status OpenSpan() {
    const v1::UploadHeader& header = message_.header();
    // Ids are shown escaped and cut until the store has validated them (a
    // hostile megabyte id is never echoed back whole).
    const std::string span = base::StrCat(
        "run ", DisplayId(header.run()), " worker ", header.worker().rank(),
        ".", DisplayId(header.worker().worker_name()), " span ",
        DisplayId(header.span()));
    {
      absl::MutexLock lock(&mu_);
      if (!span_.empty()) {
        return absl::InvalidArgumentError(
            "a second UploadHeader: one stream uploads one span");
      }
      span_ = span;
      run_ = header.run();
    }
    PD_ASSIGN_OR_RETURN(OpenStreams::Slot slot,
                        open_streams_->Acquire(header.agent_id()));
    slot_.emplace(std::move(slot));
    PD_ASSIGN_OR_RETURN(Store::OpenedSpan opened, store_->OpenSpan(header));
    lease_ = std::move(opened.lease);
    // local_uid: whose data it is, as the agent's kernel said (an audit
    // trail for spans relayed from, or written by, a node's users).
    PD_LOG(INFO,
           "span open %s agent=%s local_uid=%s resume=%d durable_sequence=%d "
           "closed=%d",
           span, header.agent_id(),
           header.has_local_uid() ? base::StrCat(header.local_uid()) : "-",
           header.resume(), opened.durable_sequence, opened.closed);
    absl::MutexLock lock(&mu_);
    span_closed_ = opened.closed;
    QueueAck(opened.durable_sequence, opened.closed);
    return absl::OkStatus();
  }

  absl::Status StartChunk() {
    PD_RETURN_IF_ERROR(CheckSpanOpen("TraceChunk"));
    size_t index = 0;
    {
      absl::MutexLock lock(&mu_);
      if (error_.has_value())
        return absl::OkStatus();  // the stream is ending already
      index = first_result_ + results_.size();
      results_.emplace_back();
      ++in_flight_;
    }
    store_->StartAppendChunk(*lease_, message_.chunk(),
                             [this, index](absl::StatusOr<int64_t> durable) {
                               Actions actions;
                               {
                                 absl::MutexLock lock(&mu_);
                                 ChunkDone(index, std::move(durable));
                                 actions = Decide();
                               }
                               Act(std::move(actions));
                             });
    return absl::OkStatus();
  }

  // Settles chunk `index`; acks go out in chunk order, and none after a
  // failure.
  void ChunkDone(size_t index, absl::StatusOr<int64_t> durable)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    --in_flight_;
    results_[index - first_result_] = std::move(durable);
    while (!results_.empty() && results_.front().has_value()) {
      const absl::StatusOr<int64_t> result = *std::move(results_.front());
      results_.pop_front();
      ++first_result_;
      if (!result.ok()) {
        Fail(result.status());
      } else if (!error_.has_value()) {
        PD_VLOG(1, "chunk durable %s sequence=%d", span_, *result);
        QueueAck(*result, false);
      }
    }
  }

  // On the build pool: the local store builds the profile as it closes. The
  // ClickHouse store returns once the CLOSED row is queued, and `Closed` runs
  // on its writer's thread, so closes of many streams share a commit.
  void CloseSpan() {
    store_->StartCloseSpan(
        *lease_, message_.end(),
        [this](const absl::Status& status) { Closed(status); });
  }

  // The end of handling the span's end (`message_`, read until now).
  void Closed(const absl::Status& status) {
    const v1::SpanEnd& end = message_.end();
    Actions actions;
    std::string run;
    {
      absl::MutexLock lock(&mu_);
      handling_ = false;
      if (!status.ok()) {
        Fail(status);
      } else {
        span_closed_ = true;
        QueueAck(static_cast<int64_t>(end.chunk_count()) - 1, true);
        PD_LOG(INFO, "span closed %s chunks=%d events=%d", span_,
               end.chunk_count(), end.event_count());
      }
      actions = Decide();
      run = run_;
    }
    if (status.ok() && hooks_->span_closed) hooks_->span_closed(run);
    Act(std::move(actions));
  }

  absl::Status CheckSpanOpen(std::string_view what) {
    absl::MutexLock lock(&mu_);
    if (span_.empty()) {
      return absl::InvalidArgumentError(
          base::StrCat(what,
                       " for an unknown span: the first message of an upload "
                       "must be an UploadHeader"));
    }
    if (span_closed_) {
      return absl::FailedPreconditionError(
          base::StrCat(what, " after the span was closed"));
    }
    return absl::OkStatus();
  }

  void QueueAck(int64_t durable, bool closed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    v1::UploadAck& ack = acks_.emplace_back();
    ack.set_durable_sequence(durable);
    ack.set_span_closed(closed);
  }

  // The stream ends with `status` once nothing of it is in flight; the first
  // failure wins.
  void Fail(absl::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (error_.has_value()) return;
    if (!span_.empty()) status = base::Annotate(status, span_);
    PD_LOG(WARNING, "upload refused %s", status.ToString());
    error_ = std::move(status);
  }

  // What the stream does next, claimed under `mu_`; Act does it once `mu_` is
  // released (a gRPC operation may react inline, and store answers take `mu_`).
  Actions Decide() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    Actions actions;
    if (finished_) return actions;
    if (end_waiting_ && in_flight_ == 0) {
      end_waiting_ = false;
      if (error_.has_value()) {
        handling_ = false;
      } else {
        actions.close_span = true;  // still handling the end
      }
    }
    if (!writing_ && !acks_.empty() && !error_.has_value()) {
      writing_ = true;
      ack_ = std::move(acks_.front());
      acks_.pop_front();
      actions.write = true;
    }
    const bool idle = in_flight_ == 0 && !writing_ && !handling_ &&
                      starting_ == 0 && (acks_.empty() || error_.has_value());
    if (idle && (error_.has_value() || read_ended_)) {
      // Nothing of the stream is under way but maybe a read, which Finish
      // cancels.
      finished_ = true;
      actions.finish =
          error_.has_value() ? rpc::ToGrpcStatus(*error_)
          : span_closed_
              ? grpc::Status::OK
              : grpc::Status(grpc::StatusCode::CANCELLED,
                             "upload ended before the span's end; resume it");
      actions.lease = std::move(
          lease_);  // released outside `mu_`: it may wait on the store
    } else if (!handling_ && !reading_ && !read_ended_ && !error_.has_value() &&
               in_flight_ < kChunksInFlight) {
      reading_ = true;
      actions.read = true;
    }
    if (actions.write || actions.close_span || actions.read) ++starting_;
    // Waiting on the client starts now, not when its last message came
    // (handling it may have taken long: a profile build, a slow store).
    if (actions.write || actions.read) last_progress_ = absl::Now();
    return actions;
  }

  // Does what Decide claimed. Until a claimed operation has started, gRPC does
  // not know of it, so the stream must not finish (OnDone would delete the
  // reactor under it): `starting_` holds Finish off until then.
  void Act(Actions actions) {
    for (;;) {
      if (actions.finish.has_value()) {
        actions.lease.reset();
        return Finish(*std::move(actions.finish));
      }
      if (!actions.write && !actions.close_span && !actions.read) return;
      if (actions.write) StartWrite(&ack_);
      if (actions.close_span) build_pool_->Post([this] { CloseSpan(); });
      if (actions.read) StartRead(&message_);
      absl::MutexLock lock(&mu_);
      --starting_;
      actions = Decide();
    }
  }

  Store* store_;
  base::ThreadPool* io_pool_;
  base::ThreadPool* build_pool_;
  const CollectorHooks* hooks_;
  OpenStreams* open_streams_;
  UploadStreams*
      upload_streams_;  // null when the stream was refused before registering
  std::optional<OpenStreams::Slot>
      slot_;  // held from the header until the reactor is done
  // Used by one step at a time (the read, then the handling of what was read).
  v1::UploadMessage message_;
  std::unique_ptr<Store::SpanLease> lease_;
  v1::UploadAck ack_;  // the ack being written

  absl::Mutex mu_;
  std::string run_ ABSL_GUARDED_BY(mu_);  // the header's, once a span opened
  std::string span_
      ABSL_GUARDED_BY(mu_);  // "run R worker K span S", once the header came
  bool span_closed_ ABSL_GUARDED_BY(mu_) = false;
  bool reading_ ABSL_GUARDED_BY(mu_) = true;  // a read is outstanding
  bool handling_ ABSL_GUARDED_BY(mu_) =
      false;  // a message read is being handled
  bool end_waiting_ ABSL_GUARDED_BY(mu_) =
      false;  // a SpanEnd waits for chunks in flight
  bool read_ended_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  int starting_ ABSL_GUARDED_BY(mu_) =
      0;  // Acts claimed by Decide and not yet started
  absl::Time last_progress_ ABSL_GUARDED_BY(mu_) =
      absl::Now();  // last read or write done
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  // Answers of the chunks handed to the store, in order, from chunk number
  // first_result_.
  std::deque<std::optional<absl::StatusOr<int64_t>>> results_
      ABSL_GUARDED_BY(mu_);
  size_t first_result_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<v1::UploadAck> acks_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Status> error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

grpc::ServerBidiReactor<v1::UploadMessage, v1::UploadAck>*
CollectorService::Upload(grpc::CallbackServerContext* /*context*/) {
  // gRPC owns the reactor until OnDone (the only new/delete this in the code).
  return new UploadReactor(store_, io_pool_, build_pool_, &hooks_,
                           &open_streams_, &upload_streams_);
}

grpc::ServerUnaryReactor* CollectorService::ListDamagedSpans(
    grpc::CallbackServerContext* context,
    const v1::ListDamagedSpansRequest* request,
    v1::ListDamagedSpansResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  io_pool_->Post([this, reactor, request, response] {
    absl::StatusOr<v1::ListDamagedSpansResponse> spans =
        store_->ListDamagedSpans(*request);
    const grpc::Status status = rpc::ToGrpcStatus(spans.status());
    if (spans.ok()) *response = *std::move(spans);
    reactor->Finish(status);
  });
  return reactor;
}

}  // namespace profdiff::aggregator
