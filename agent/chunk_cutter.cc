#include "agent/chunk_cutter.h"

#include <algorithm>

#include "base/status_macros.h"
#include "trace/event_batch.h"

namespace profdiff::agent {

ChunkCutter::ChunkCutter(const trace::Trace& trace, size_t chunk_events,
                         size_t max_chunk_bytes)
    : trace_(trace),
      chunk_events_(std::max<size_t>(chunk_events, 1)),
      max_chunk_bytes_(max_chunk_bytes) {}

absl::StatusOr<bool> ChunkCutter::Cut(uint64_t sequence,
                                      v1::EventBatch& batch) {
  const size_t events = trace_.events.size();
  // Known chunk: its range is fixed, encode exactly that range.
  if (sequence + 1 < begin_.size()) {
    trace::EncodeEventBatch(trace_, begin_[sequence], begin_[sequence + 1],
                            batch);
    return true;
  }
  // Find the boundaries up to `sequence`, encoding the chunks in between to
  // learn them.
  while (begin_.size() - 1 <= sequence) {
    if (begin_.back() == events) return false;
    PD_ASSIGN_OR_RETURN(
        const size_t end,
        trace::EncodeEventBatchWithin(trace_, begin_.back(), chunk_events_,
                                      max_chunk_bytes_, batch));
    begin_.push_back(end);
  }
  return true;
}

std::optional<uint64_t> ChunkCutter::chunk_count() const {
  if (begin_.back() != trace_.events.size()) return std::nullopt;
  return begin_.size() - 1;
}

}  // namespace profdiff::agent
