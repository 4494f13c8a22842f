// Uploads one Trace to the aggregator as one span over Collector.Upload,
// resuming after the last durable chunk when the stream breaks and retrying
// with backoff while the aggregator is away.
//
// Design (the protocol is collector.proto's):
// 1. header -> first ack (durable_sequence, span_closed) -> chunks durable+1 ..
//    last, in order -> end{chunk_count, event_count} -> acks until span_closed
//    -> WritesDone, Finish.
// 2. At most `window_chunks` chunks are unacknowledged; each ack confirms every
//    chunk up to its durable_sequence. A written chunk is not kept: a resume
//    re-encodes it from the Trace (ChunkCutter cuts the same chunks every
//    time), so memory is the Trace plus one chunk.
// 3. A broken stream (UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED, CANCELLED,
//    UNKNOWN, INTERNAL, or a stream that ends before the span closed)
//    reconnects after a full-jitter backoff with resume = true; the first ack
//    tells where to restart. Any other code is the aggregator's final word on
//    this span and ends the upload.
// 4. A stop request cancels the stream in flight and the wait between retries
//    at once.
#ifndef PROFDIFF_AGENT_SPAN_UPLOADER_H_
#define PROFDIFF_AGENT_SPAN_UPLOADER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include <absl/random/random.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "agent/backoff.h"
#include "profdiff/v1/collector.grpc.pb.h"
#include "profdiff/v1/trace.pb.h"
#include "rpc/credentials.h"
#include "rpc/limits.h"
#include "trace/trace.h"

namespace profdiff::agent {

// Room left in a chunk message for its envelope (sequence, tags, lengths) under
// kMaxChunkBytes.
inline constexpr size_t kChunkEnvelopeSlackBytes = 64 << 10;
// Events per chunk before the byte bound: ~2 MiB encoded for typical Kineto
// events.
inline constexpr uint32_t kDefaultChunkEvents = 1 << 16;

struct SpanUploaderOptions {
  std::string agent_id;  // UploadHeader.agent_id
  rpc::ChannelSecurity
      security;  // plaintext unless TLS (and a token) were configured
  size_t max_chunk_bytes = rpc::kMaxChunkBytes - kChunkEnvelopeSlackBytes;
  // Unacknowledged chunks in flight, >= 1.
  int window_chunks = rpc::kDefaultUploadWindowChunks;
  absl::Duration stream_timeout =
      absl::Minutes(5);    // deadline of one Upload stream
  BackoffOptions backoff;  // between reconnects
  absl::Time deadline =
      absl::InfiniteFuture();  // no new attempt or wait past it
};

// What the Upload header says about the span, and how it is cut.
struct SpanHeader {
  std::string run;
  std::string span;
  v1::WorkerInfo worker;
  bool resume = false;  // chunks of this span may have been sent before
  std::string
      content_fingerprint;  // trace::TraceFingerprintHex of the span's trace
  // Events per chunk; a resumed span must use the value of its first upload.
  uint32_t chunk_events = kDefaultChunkEvents;
  // Whose data this is (UploadHeader.local_uid): the trace file's owner.
  std::optional<uint32_t> local_uid;
};

// What one Upload did, also when it failed.
struct SpanUploadStats {
  int64_t events = 0;        // events in the span
  int64_t chunk_count = -1;  // chunks in the span; -1 when never cut to the end
  int64_t chunks_sent = 0;   // chunk messages written, over all attempts
  int64_t bytes_sent = 0;    // their encoded size
  int64_t retries = 0;       // reconnects after a broken stream
  int64_t acked_sequence = -1;  // highest durable chunk the aggregator reported
  absl::Duration elapsed;       // wall time of the whole Upload, waits included
};

// True for the codes after which an upload reconnects and resumes (design note
// 3).
bool IsRetryableUploadError(const absl::Status& status);

// Uploads spans to one aggregator. Upload is not thread-safe (one upload at a
// time per object); use one SpanUploader per uploading thread.
class SpanUploader {
 public:
  // Talks to the aggregator at `address` ("HOST:PORT"); connects lazily,
  // nothing fails here.
  SpanUploader(const std::string& address, SpanUploaderOptions options);
  ~SpanUploader();
  SpanUploader(const SpanUploader&) = delete;
  SpanUploader& operator=(const SpanUploader&) = delete;

  // Uploads `trace` (borrowed for the call) as span `header` and returns OK
  // once the aggregator acknowledged the span closed (also when it was closed
  // already). Errors:
  // - Cancelled: `stop` was requested; the span may be partly stored and
  //   resumes later.
  // - DeadlineExceeded: options.deadline passed while retrying; the message
  //   has the last error.
  // - ResourceExhausted: one event encodes to more than max_chunk_bytes.
  // - any other code: the aggregator refused the span (its status, annotated
  //   with the span).
  // `stats` is overwritten with what happened, whatever the result.
  absl::Status Upload(const trace::Trace& trace, const SpanHeader& header,
                      const std::stop_token& stop, SpanUploadStats& stats);

  // The spans the aggregator found damaged that this agent (options.agent_id)
  // sent, or whose sender it does not know, so they can be sent again. One
  // call, `timeout` long at most.
  absl::StatusOr<std::vector<v1::DamagedSpan>> ListDamagedSpans(
      absl::Duration timeout);

 private:
  SpanUploaderOptions options_;
  std::unique_ptr<v1::Collector::Stub> stub_;
  absl::BitGen gen_;  // jitter
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_SPAN_UPLOADER_H_
