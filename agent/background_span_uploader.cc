#include "agent/background_span_uploader.h"

#include <utility>

#include "base/log.h"

namespace profdiff::agent {

BackgroundSpanUploader::BackgroundSpanUploader(
    std::unique_ptr<SpanUploader> uploader, int64_t max_queued_events)
    : uploader_(std::move(uploader)),
      max_queued_events_(max_queued_events),
      thread_([this](const std::stop_token& stop) { Run(stop); }) {}

BackgroundSpanUploader::~BackgroundSpanUploader() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.request_stop();  // cancels SpanUploader::Upload in flight
  thread_.join();
  absl::MutexLock lock(&mu_);
  stats_.spans_abandoned += static_cast<int64_t>(queue_.size());
  if (!queue_.empty()) {
    PD_LOG(WARNING, "spans not acknowledged at stop spans=%d events=%d",
           queue_.size(), queued_events_);
  }
}

bool BackgroundSpanUploader::Offer(FinishedSpan& span) {
  const auto events = static_cast<int64_t>(span.trace.events.size());
  absl::MutexLock lock(&mu_);
  if (stopping_ || queued_events_ + events > max_queued_events_) return false;
  queued_events_ += events;
  queue_.push_back(std::move(span));
  return true;
}

int64_t BackgroundSpanUploader::queued_events() const {
  absl::MutexLock lock(&mu_);
  return queued_events_;
}

bool BackgroundSpanUploader::Drain(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  auto empty = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return queue_.empty();
  };
  return mu_.AwaitWithDeadline(absl::Condition(&empty), deadline);
}

BackgroundUploadStats BackgroundSpanUploader::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

void BackgroundSpanUploader::Run(const std::stop_token& stop) {
  // Wakes the Await below when a stop is requested.
  std::stop_callback wake(stop, [this] {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  });
  while (true) {
    FinishedSpan* span = nullptr;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || !queue_.empty();
      };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) return;
      span = &queue_.front();  // deque: stays put while others are appended
    }
    SpanUploadStats upload;
    const absl::Status status =
        uploader_->Upload(span->trace, span->header, stop, upload);
    absl::MutexLock lock(&mu_);
    if (status.ok()) {
      ++stats_.spans_acknowledged;
      stats_.events_acknowledged += upload.events;
      PD_VLOG(1, "span acknowledged run=%s span=%s events=%d retries=%d",
              span->header.run, span->header.span, upload.events,
              upload.retries);
    } else if (stop.stop_requested()) {
      return;  // the destructor counts it abandoned
    } else {
      ++stats_.spans_refused;
      PD_LOG(ERROR, "span refused run=%s span=%s events=%d error=%s",
             span->header.run, span->header.span, upload.events,
             status.ToString());
    }
    queued_events_ -= static_cast<int64_t>(span->trace.events.size());
    queue_.pop_front();
  }
}

}  // namespace profdiff::agent
