// Uploads finished spans on its own thread, in the order they were offered, so
// a producer that must never block (the CUPTI injection library inside a
// training process) hands a span over and goes on.
//
// Design:
// 1. A bounded queue, counted in events: Offer refuses a span that does not fit
//    and the producer counts its events as dropped (they reach
//    WorkerInfo.dropped_event_count of a later span), so memory stays bounded
//    while the agent is away.
// 2. One SpanUploader on the thread: each span is retried with backoff until
//    acknowledged (SpanUploader's resume makes a retry send only what is
//    missing), or refused for good.
// 3. Drain waits, bounded, for the queue to empty (the process's exit); the
//    destructor cancels the upload in flight and joins.
#ifndef PROFDIFF_AGENT_BACKGROUND_SPAN_UPLOADER_H_
#define PROFDIFF_AGENT_BACKGROUND_SPAN_UPLOADER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>

#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

#include "agent/span_uploader.h"
#include "trace/trace.h"

namespace profdiff::agent {

// A finished span and the header it is uploaded under.
struct FinishedSpan {
  trace::Trace trace;
  SpanHeader header;
};

// What happened to the spans offered so far.
struct BackgroundUploadStats {
  int64_t spans_acknowledged = 0;
  int64_t spans_refused =
      0;  // the aggregator's final word was an error; logged
  int64_t spans_abandoned =
      0;  // still queued or in flight when the uploader stopped
  int64_t events_acknowledged = 0;
};

// Thread-safe.
class BackgroundSpanUploader {
 public:
  // Starts the upload thread. `max_queued_events` bounds the events of queued
  // and in-flight spans together.
  BackgroundSpanUploader(std::unique_ptr<SpanUploader> uploader,
                         int64_t max_queued_events);
  // Cancels the upload in flight (it resumes nowhere: counted abandoned) and
  // joins.
  ~BackgroundSpanUploader();
  BackgroundSpanUploader(const BackgroundSpanUploader&) = delete;
  BackgroundSpanUploader& operator=(const BackgroundSpanUploader&) = delete;

  // Queues `span` and returns true, at once; false (the span is not taken,
  // `span` unchanged) when its events would take the queue past
  // max_queued_events.
  bool Offer(FinishedSpan& span) ABSL_LOCKS_EXCLUDED(mu_);

  // Events queued or in flight now: room left is max_queued_events minus this.
  int64_t queued_events() const ABSL_LOCKS_EXCLUDED(mu_);
  int64_t max_queued_events() const { return max_queued_events_; }

  // Waits until every offered span is acknowledged or refused, or until
  // `deadline`. True when nothing is left.
  bool Drain(absl::Time deadline) ABSL_LOCKS_EXCLUDED(mu_);

  BackgroundUploadStats stats() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Run(const std::stop_token& stop) ABSL_LOCKS_EXCLUDED(mu_);

  std::unique_ptr<SpanUploader> uploader_;  // used by the thread only
  const int64_t max_queued_events_;
  mutable absl::Mutex mu_;
  // front() is the span in flight (the thread alone pops it, once its upload
  // ended).
  std::deque<FinishedSpan> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int64_t queued_events_ ABSL_GUARDED_BY(mu_) = 0;
  BackgroundUploadStats stats_ ABSL_GUARDED_BY(mu_);
  std::jthread thread_;  // last: started after every member it uses
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_BACKGROUND_SPAN_UPLOADER_H_
