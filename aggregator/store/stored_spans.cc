#include "aggregator/store/stored_spans.h"

#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "trace/chrome_trace_writer.h"
#include "trace/span_merge.h"
#include "trace/trace_append.h"
#include "trace/worker_info.h"

namespace profdiff::aggregator {
namespace {

// Appends the batch `bytes` (chunk `sequence`) to `trace`.
absl::Status AppendBatch(std::string_view bytes, uint64_t sequence,
                         const trace::EventBatchLimits& limits,
                         v1::EventBatch& batch, trace::Trace& trace) {
  if (!batch.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::DataLossError(
        base::StrCat("chunk ", sequence, " does not parse as EventBatch"));
  }
  return trace::AppendEventBatch(batch, limits, trace);
}

absl::Status LoadSpanBatches(const StoredSpan& span,
                             const trace::EventBatchLimits& limits,
                             trace::Trace& trace) {
  PD_ASSIGN_OR_RETURN(const std::unique_ptr<BatchCursor> cursor,
                      span.open_batches());
  v1::EventBatch batch;
  for (uint64_t sequence = 0;; ++sequence) {
    PD_ASSIGN_OR_RETURN(const std::optional<std::string_view> bytes,
                        cursor->Next());
    if (!bytes.has_value()) return absl::OkStatus();
    PD_RETURN_IF_ERROR(AppendBatch(*bytes, sequence, limits, batch, trace));
  }
}

absl::Status LoadSpan(const StoredSpan& span,
                      const trace::EventBatchLimits& limits,
                      trace::Trace& trace) {
  PD_RETURN_IF_ERROR(base::Annotate(LoadSpanBatches(span, limits, trace),
                                    base::StrCat("span ", span.id)));
  trace::ApplyWorkerInfo(span.worker, trace);
  return absl::OkStatus();
}

// Writes the merged spans' JSON a chunk at a time: the state is the span and
// chunk being written and how far into the chunk's events the last piece got.
class SpansExport final : public TraceExport {
 public:
  SpansExport(std::vector<StoredSpan> spans,
              const trace::EventBatchLimits& limits)
      : spans_(std::move(spans)), limits_(limits) {}

  absl::StatusOr<bool> NextPiece(size_t max_bytes,
                                 std::string& piece) override {
    piece.clear();
    if (done_) return false;
    if (!begun_) {
      begun_ = true;
      trace::Trace head;
      trace::ApplyWorkerInfo(spans_.front().worker, head);
      first_base_time_ns_ = head.metadata.base_time_ns;
      stream_.Begin(head.metadata, piece);
    }
    while (piece.size() < max_bytes) {
      if (next_event_ < events_->events.size()) {
        stream_.Append(*events_, next_event_, next_event_ + 1, piece);
        ++next_event_;
        continue;
      }
      PD_ASSIGN_OR_RETURN(const bool loaded, LoadNextChunk());
      if (!loaded) {
        stream_.End(piece);
        done_ = true;
        break;
      }
    }
    return true;
  }

 private:
  // Decodes the next stored chunk into events_; false after the last span's
  // last chunk.
  absl::StatusOr<bool> LoadNextChunk() {
    for (;;) {
      if (cursor_ == nullptr) {
        if (next_span_ == spans_.size()) return false;
        span_ = next_span_++;
        PD_ASSIGN_OR_RETURN(cursor_, spans_[span_].open_batches());
        sequence_ = 0;
      }
      absl::StatusOr<std::optional<std::string_view>> bytes = cursor_->Next();
      if (!bytes.ok())
        return base::Annotate(bytes.status(),
                              base::StrCat("span ", spans_[span_].id));
      if (!bytes->has_value()) {
        cursor_.reset();
        continue;
      }
      chunk_.ClearKeepingCapacity();
      PD_RETURN_IF_ERROR(base::Annotate(
          AppendBatch(**bytes, sequence_++, limits_, batch_, chunk_),
          base::StrCat("span ", spans_[span_].id)));
      next_event_ = 0;
      if (span_ == 0) {
        events_ = &chunk_;
      } else {
        // Later spans are rebased and their ids moved, as MergeSpans does.
        shifted_.ClearKeepingCapacity();
        shifted_.events.arg_begin.push_back(0);
        trace::AppendTrace(
            shifted_, chunk_,
            trace::SpanMergeShift(span_, spans_[span_].worker.base_time_ns(),
                                  first_base_time_ns_));
        events_ = &shifted_;
      }
      return true;
    }
  }

  const std::vector<StoredSpan> spans_;
  const trace::EventBatchLimits limits_;
  trace::ChromeTraceStream stream_;
  int64_t first_base_time_ns_ = 0;
  size_t next_span_ = 0;
  size_t span_ = 0;
  std::unique_ptr<BatchCursor> cursor_;
  uint64_t sequence_ = 0;
  v1::EventBatch batch_;
  trace::Trace chunk_;
  trace::Trace shifted_;
  const trace::Trace* events_ = &chunk_;
  size_t next_event_ = 0;
  bool begun_ = false;  // the document's head is written
  bool done_ = false;
};

}  // namespace

std::unique_ptr<TraceExport> ExportSpans(
    std::vector<StoredSpan> spans, const trace::EventBatchLimits& limits) {
  return std::make_unique<SpansExport>(std::move(spans), limits);
}

absl::StatusOr<trace::Trace> LoadSpans(const std::vector<StoredSpan>& spans,
                                       const trace::EventBatchLimits& limits) {
  std::vector<trace::Trace> traces(spans.size());
  for (size_t i = 0; i < spans.size(); ++i)
    PD_RETURN_IF_ERROR(LoadSpan(spans[i], limits, traces[i]));
  return trace::MergeSpans(std::move(traces));
}

absl::StatusOr<v1::WorkerProfile> BuildProfile(
    const std::string& run, const std::vector<StoredSpan>& spans,
    const trace::EventBatchLimits& limits,
    const analysis::ProfileOptions& options) {
  PD_ASSIGN_OR_RETURN(trace::Trace merged, LoadSpans(spans, limits));
  const v1::WorkerInfo& latest = spans.back().worker;
  v1::WorkerProfile profile = analysis::BuildWorkerProfile(
      merged, {run, latest.worker_name(), static_cast<int32_t>(spans.size())},
      options);
  profile.mutable_worker()->set_hostname(latest.hostname());
  return profile;
}

}  // namespace profdiff::aggregator
