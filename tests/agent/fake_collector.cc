#include "tests/agent/fake_collector.h"

#include <algorithm>
#include <utility>

#include <absl/cleanup/cleanup.h>

#include "trace/event_batch.h"

namespace profdiff::agent {
namespace {

std::string Key(const std::string& run, const std::string& span) {
  return run + "/" + span;
}

}  // namespace

grpc::Status FakeCollector::Upload(
    grpc::ServerContext*,
    grpc::ServerReaderWriter<v1::UploadAck, v1::UploadMessage>* stream) {
  v1::UploadMessage message;
  if (!stream->Read(&message) || !message.has_header()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "expected a header first");
  }
  const std::string key = Key(message.header().run(), message.header().span());
  {
    absl::MutexLock lock(&mu_);
    ++open_streams_;
    max_open_streams_ = std::max(max_open_streams_, open_streams_);
  }
  // Runs after any MutexLock of the body is released, before the client sees
  // the stream's status.
  absl::Cleanup closed = [this] {
    absl::MutexLock lock(&mu_);
    --open_streams_;
  };
  v1::UploadAck ack;
  size_t stream_index = 0;
  {
    absl::MutexLock lock(&mu_);
    streams_.push_back({.header = message.header()});
    stream_index = streams_.size() - 1;
    if (refuse_) return refusal_;
    if (hold_until_open_ > 0) {
      const auto all_open = [this] {
        mu_.AssertHeld();
        return open_streams_ >= hold_until_open_;
      };
      if (mu_.AwaitWithTimeout(absl::Condition(&all_open), absl::Seconds(30)))
        hold_until_open_ = 0;  // releases the others too
    }
    const FakeSpan& span = spans_[key];
    ack.set_durable_sequence(span.durable_sequence);
    ack.set_span_closed(span.closed);
  }
  if (!stream->Write(ack)) return grpc::Status::OK;
  while (stream->Read(&message)) {
    ack.Clear();
    {
      absl::MutexLock lock(&mu_);
      FakeSpan& span = spans_[key];
      if (message.has_chunk()) {
        const int64_t sequence =
            static_cast<int64_t>(message.chunk().sequence());
        if (streams_[stream_index].first_chunk < 0)
          streams_[stream_index].first_chunk = sequence;
        if (sequence <= span.durable_sequence) continue;  // duplicate: ignored
        if (sequence != span.durable_sequence + 1) {
          return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                              "chunk out of order");
        }
        span.max_batch_bytes = std::max(
            span.max_batch_bytes, message.chunk().events().ByteSizeLong());
        const absl::Status appended = trace::AppendEventBatch(
            message.chunk().events(), trace::EventBatchLimits{}, span.events);
        if (!appended.ok()) {
          return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                              std::string(appended.message()));
        }
        span.durable_sequence = sequence;
        if (sequence == break_after_chunk_) {
          break_after_chunk_ = -1;
          return grpc::Status(grpc::StatusCode::UNAVAILABLE, "injected break");
        }
      } else if (message.has_end()) {
        if (static_cast<int64_t>(message.end().chunk_count()) !=
                span.durable_sequence + 1 ||
            message.end().event_count() !=
                static_cast<int64_t>(span.events.events.size())) {
          return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                              "end does not match the chunks");
        }
        span.end = message.end();
        span.closed = true;
      }
      ack.set_durable_sequence(span.durable_sequence);
      ack.set_span_closed(span.closed);
    }
    if (!stream->Write(ack)) break;
  }
  return grpc::Status::OK;
}

void FakeCollector::BreakAfterChunk(int64_t sequence) {
  absl::MutexLock lock(&mu_);
  break_after_chunk_ = sequence;
}

void FakeCollector::RefuseWith(grpc::Status status) {
  absl::MutexLock lock(&mu_);
  refuse_ = true;
  refusal_ = std::move(status);
}

void FakeCollector::HoldUntilOpen(size_t n) {
  absl::MutexLock lock(&mu_);
  hold_until_open_ = n;
}

size_t FakeCollector::max_open_streams() const {
  absl::MutexLock lock(&mu_);
  return max_open_streams_;
}

void FakeCollector::CloseSpan(const std::string& run, const std::string& span) {
  absl::MutexLock lock(&mu_);
  spans_[Key(run, span)].closed = true;
}

std::vector<FakeStream> FakeCollector::streams() const {
  absl::MutexLock lock(&mu_);
  return streams_;
}

bool FakeCollector::AwaitStreams(size_t n) const {
  absl::MutexLock lock(&mu_);
  const auto started = [this, n] {
    mu_.AssertHeld();
    return streams_.size() >= n;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&started), absl::Seconds(30));
}

const FakeSpan* FakeCollector::span(const std::string& run,
                                    const std::string& span) const {
  absl::MutexLock lock(&mu_);
  const auto it = spans_.find(Key(run, span));
  return it == spans_.end() ? nullptr : &it->second;
}

}  // namespace profdiff::agent
