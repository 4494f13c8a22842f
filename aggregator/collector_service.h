// The Collector gRPC service: one reactor per Upload stream, adapting
// UploadMessages to the Store's OpenSpan / AppendChunk / CloseSpan.
#ifndef PROFDIFF_AGGREGATOR_COLLECTOR_SERVICE_H_
#define PROFDIFF_AGGREGATOR_COLLECTOR_SERVICE_H_

#include <functional>

#include "aggregator/open_streams.h"
#include "aggregator/store/store.h"
#include "aggregator/upload_streams.h"
#include "base/thread_pool.h"
#include "profdiff/v1/collector.grpc.pb.h"

namespace profdiff::aggregator {

// Protocol (protos/profdiff/v1/collector.proto): header, chunks, end. Headers
// and chunks are handled on `io_pool`, a span's end (which may build the
// worker's profile, CPU-heavy) on `build_pool`, so acks of other streams never
// wait behind a profile build. A stream's messages are handled one at a time,
// in order; a chunk is handled once the store has taken it
// (Store::StartAppendChunk), so up to rpc::kDefaultUploadWindowChunks chunks of
// a stream are stored together, and each is answered with an UploadAck, in
// chunk order, once it and every earlier chunk are durable. A span's end waits
// for its chunks. A bad message ends the stream with INVALID_ARGUMENT /
// RESOURCE_EXHAUSTED / FAILED_PRECONDITION and stores nothing of it; once a
// chunk fails no ack is written any more, not even one queued for an earlier
// durable chunk (the agent resumes from the durable sequence the store holds).
// Limits: an agent may hold `max_streams_per_agent` streams open at once
// (counted from the header on), all agents together `max_streams` (counted from
// the stream's start; more are UNAVAILABLE, which agents retry); a stream that
// waits on its client for `stream_idle_timeout` ends with DEADLINE_EXCEEDED,
// releasing its span for the agent's next attempt. `store` and the pools must
// outlive the service.
struct CollectorLimits {
  int max_streams_per_agent = 64;
  int max_streams = 4096;
  absl::Duration stream_idle_timeout = absl::Minutes(2);
};

// Moments a stream waits on chunks still being stored, for tests to wait on
// instead of sleeping. Called on the service's threads, without its locks.
struct CollectorHooks {
  // A SpanEnd came while chunks are in flight: the close waits for them.
  std::function<void()> end_waits_for_chunks;
  // The agent's side ended (cancelled, went away) while chunks are in flight:
  // the stream, and the span it holds, stay until they are answered.
  std::function<void()> read_ended_with_chunks_in_flight;
  // A stream is gone, and with it its hold on its span.
  std::function<void()> stream_done;
  // A span of `run` closed (durable, its profile built or queued).
  std::function<void(const std::string& run)> span_closed;
};

class CollectorService final : public v1::Collector::CallbackService {
 public:
  CollectorService(Store* store, base::ThreadPool* io_pool,
                   base::ThreadPool* build_pool, const CollectorLimits& limits,
                   CollectorHooks hooks = {})
      : store_(store),
        io_pool_(io_pool),
        build_pool_(build_pool),
        hooks_(std::move(hooks)),
        open_streams_(limits.max_streams_per_agent),
        upload_streams_(limits.max_streams, limits.stream_idle_timeout) {}

  grpc::ServerBidiReactor<v1::UploadMessage, v1::UploadAck>* Upload(
      grpc::CallbackServerContext* context) override;
  // Runs on `io_pool`.
  grpc::ServerUnaryReactor* ListDamagedSpans(
      grpc::CallbackServerContext* context,
      const v1::ListDamagedSpansRequest* request,
      v1::ListDamagedSpansResponse* response) override;

 private:
  Store* store_;
  base::ThreadPool* io_pool_;
  base::ThreadPool* build_pool_;
  const CollectorHooks hooks_;
  OpenStreams open_streams_;
  UploadStreams upload_streams_;
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_COLLECTOR_SERVICE_H_
