#include "agent/span_uploader.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <optional>
#include <utility>

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>
#include <grpcpp/support/sync_stream.h>

#include "agent/chunk_cutter.h"
#include "base/log.h"
#include "base/status_annotate.h"
#include "base/stoppable_wait.h"
#include "base/str_cat.h"
#include "rpc/channel.h"
#include "rpc/status_conversion.h"

namespace profdiff::agent {
namespace {

using UploadStream = grpc::ClientReaderWriter<v1::UploadMessage, v1::UploadAck>;

// One Upload stream: header, chunks, end. Lives for one attempt; the
// ClientContext outlives the stream and the stop callback that cancels it
// (members are destroyed in reverse order).
class UploadAttempt {
 public:
  UploadAttempt(v1::Collector::Stub& stub, absl::Duration timeout,
                const std::stop_token& stop, std::string span_name)
      : span_name_(std::move(span_name)),
        cancel_on_stop_(stop, [this] { context_.TryCancel(); }) {
    rpc::SetTimeout(context_, timeout);
    stream_ = stub.Upload(&context_);
  }

  ~UploadAttempt() {
    // A stream left early (a local error) is cancelled and drained before it is
    // destroyed.
    if (!finished_) {
      context_.TryCancel();
      v1::UploadAck ignored;
      while (stream_->Read(&ignored)) {
      }
      stream_->Finish();
    }
  }

  // Runs the attempt; every ack seen raises stats.acked_sequence.
  absl::Status Run(const trace::Trace& trace, const SpanHeader& header,
                   bool resume, const SpanUploaderOptions& options,
                   ChunkCutter& cutter, v1::UploadMessage& message,
                   SpanUploadStats& stats) {
    v1::UploadHeader* h = message.mutable_header();
    h->set_run(header.run);
    h->set_span(header.span);
    h->set_agent_id(options.agent_id);
    *h->mutable_worker() = header.worker;
    h->set_resume(resume);
    h->set_content_fingerprint(header.content_fingerprint);
    if (header.local_uid.has_value()) h->set_local_uid(*header.local_uid);
    if (!stream_->Write(message)) return Broken("sending the header");

    v1::UploadAck ack;
    if (!stream_->Read(&ack)) return Broken("waiting for the first ack");
    int64_t acked = ack.durable_sequence();
    if (acked < -1) {
      return Refuse(absl::FailedPreconditionError(absl::StrFormat(
          "aggregator answered durable_sequence %d; expected -1 or more",
          acked)));
    }
    const int64_t first_acked = acked;
    stats.acked_sequence = std::max(stats.acked_sequence, acked);
    if (ack.span_closed()) return Close();

    const int64_t window = std::max(options.window_chunks, 1);
    bool closed = false;
    int64_t next = acked + 1;
    while (!closed) {
      const absl::StatusOr<bool> cut =
          cutter.Cut(static_cast<uint64_t>(next),
                     *message.mutable_chunk()->mutable_events());
      if (!cut.ok()) return Refuse(cut.status());
      if (!*cut) break;
      message.mutable_chunk()->set_sequence(static_cast<uint64_t>(next));
      const int64_t bytes = static_cast<int64_t>(message.ByteSizeLong());
      if (!stream_->Write(message))
        return Broken(absl::StrFormat("sending chunk %d", next));
      ++stats.chunks_sent;
      stats.bytes_sent += bytes;
      ++next;
      // Keep at most `window` chunks above the durable sequence in flight.
      while (!closed && next - 1 - acked >= window) {
        if (!stream_->Read(&ack)) {
          return Broken(
              absl::StrFormat("waiting for the ack of chunk %d", acked + 1));
        }
        acked = std::max(acked, ack.durable_sequence());
        stats.acked_sequence = std::max(stats.acked_sequence, acked);
        closed = ack.span_closed();
      }
    }
    const std::optional<uint64_t> chunk_count = cutter.chunk_count();
    if (!closed) {
      // Cut() stopped at the end of the events, so the count is known here.
      if (!chunk_count.has_value() ||
          next > static_cast<int64_t>(*chunk_count)) {
        return Refuse(absl::FailedPreconditionError(absl::StrFormat(
            "aggregator holds chunks up to %d, but this span has %d chunks of "
            "at most %d events "
            "(was the file changed, or --chunk-events?)",
            first_acked,
            chunk_count.has_value() ? static_cast<int64_t>(*chunk_count)
                                    : int64_t{-1},
            header.chunk_events)));
      }
      v1::SpanEnd* end = message.mutable_end();
      end->set_chunk_count(*chunk_count);
      end->set_event_count(static_cast<int64_t>(trace.events.size()));
      if (!stream_->Write(message)) return Broken("sending the span end");
      while (!closed) {
        if (!stream_->Read(&ack))
          return Broken("waiting for the span to close");
        acked = std::max(acked, ack.durable_sequence());
        stats.acked_sequence = std::max(stats.acked_sequence, acked);
        closed = ack.span_closed();
      }
    }
    return Close();
  }

 private:
  // The span is closed on the aggregator: end our side. The span's end is
  // durable whatever Finish says, so its status does not fail the upload.
  absl::Status Close() {
    stream_->WritesDone();
    v1::UploadAck ignored;
    while (stream_->Read(&ignored)) {
    }
    stream_->Finish();
    finished_ = true;
    return absl::OkStatus();
  }

  // The stream failed while `during`: drain it and return its status
  // (Unavailable when the aggregator ended it with OK before closing the span),
  // naming the span and the step.
  absl::Status Broken(std::string_view during) {
    v1::UploadAck ignored;
    while (stream_->Read(&ignored)) {
    }
    absl::Status status = rpc::FromGrpcStatus(stream_->Finish());
    finished_ = true;
    if (status.ok()) {
      status = absl::UnavailableError(
          "the aggregator ended the stream before the span closed");
    }
    return base::Annotate(
        status, base::StrCat("uploading span ", span_name_, ": ", during));
  }

  // A local verdict (on the aggregator's answers, or a chunk that cannot be
  // cut): names the span; the destructor cancels the stream.
  absl::Status Refuse(const absl::Status& status) {
    return base::Annotate(status, base::StrCat("uploading span ", span_name_));
  }

  const std::string span_name_;
  grpc::ClientContext context_;
  std::stop_callback<std::function<void()>> cancel_on_stop_;
  std::unique_ptr<UploadStream> stream_;
  bool finished_ = false;
};

}  // namespace

bool IsRetryableUploadError(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kAborted:
    case absl::StatusCode::kCancelled:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kInternal:
      return true;
    default:
      return false;
  }
}

SpanUploader::SpanUploader(const std::string& address,
                           SpanUploaderOptions options)
    : options_(std::move(options)),
      stub_(v1::Collector::NewStub(rpc::MakeChannel(
          address, options_.security, ReconnectBackoffOf(options_.backoff)))) {}

SpanUploader::~SpanUploader() = default;

absl::StatusOr<std::vector<v1::DamagedSpan>> SpanUploader::ListDamagedSpans(
    absl::Duration timeout) {
  grpc::ClientContext context;
  rpc::SetTimeout(context, timeout);
  v1::ListDamagedSpansRequest request;
  request.set_agent_id(options_.agent_id);
  v1::ListDamagedSpansResponse response;
  const grpc::Status status =
      stub_->ListDamagedSpans(&context, request, &response);
  if (!status.ok()) return rpc::FromGrpcStatus(status);
  return std::vector<v1::DamagedSpan>(response.spans().begin(),
                                      response.spans().end());
}

absl::Status SpanUploader::Upload(const trace::Trace& trace,
                                  const SpanHeader& header,
                                  const std::stop_token& stop,
                                  SpanUploadStats& stats) {
  const absl::Time start = absl::Now();
  stats = SpanUploadStats{};
  stats.events = static_cast<int64_t>(trace.events.size());
  const std::string span_name = base::StrCat(header.run, "/", header.span);
  ChunkCutter cutter(trace, header.chunk_events, options_.max_chunk_bytes);
  Backoff backoff(options_.backoff);
  v1::UploadMessage
      message;  // reused: a chunk's batch keeps its capacity between chunks
  bool resume = header.resume;
  absl::Status status;
  absl::Status last_error;
  for (;;) {
    if (stop.stop_requested()) {
      status = absl::CancelledError(
          absl::StrFormat("uploading span %s: stopped with chunks up to %d "
                          "acknowledged; it resumes on the next start",
                          span_name, stats.acked_sequence));
      break;
    }
    const absl::Duration left = options_.deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      status = absl::DeadlineExceededError(
          absl::StrFormat("uploading span %s: gave up at the deadline after %d "
                          "retries; last error: %s",
                          span_name, stats.retries, last_error.message()));
      break;
    }
    const int64_t acked_before = stats.acked_sequence;
    {
      UploadAttempt attempt(*stub_, std::min(options_.stream_timeout, left),
                            stop, span_name);
      status =
          attempt.Run(trace, header, resume, options_, cutter, message, stats);
    }
    if (status.ok() || !IsRetryableUploadError(status)) break;
    last_error = status;
    resume = true;
    // Chunks became durable: the aggregator is back, so the next break starts a
    // new series.
    if (stats.acked_sequence > acked_before) backoff.Reset();
    if (stop.stop_requested()) continue;  // reported as Cancelled above
    const absl::Duration delay =
        std::min(backoff.NextDelay(gen_), options_.deadline - absl::Now());
    ++stats.retries;
    // A repeating warning is summarised: the 1st, 2nd, 4th, 8th ... retry of a
    // series.
    if (std::has_single_bit(static_cast<uint64_t>(backoff.attempts()))) {
      PD_LOG(WARNING, "upload retry span=%s retries=%d delay_ms=%d error=%s",
             span_name, stats.retries, absl::ToInt64Milliseconds(delay),
             status.message());
    } else {
      PD_VLOG(1, "upload retry span=%s retries=%d delay_ms=%d error=%s",
              span_name, stats.retries, absl::ToInt64Milliseconds(delay),
              status.message());
    }
    base::WaitUnlessStopped(stop,
                            delay);  // a stop is seen at the top of the loop
  }
  const std::optional<uint64_t> chunk_count = cutter.chunk_count();
  stats.chunk_count =
      chunk_count.has_value() ? static_cast<int64_t>(*chunk_count) : -1;
  stats.elapsed = absl::Now() - start;
  return status;
}

}  // namespace profdiff::agent
