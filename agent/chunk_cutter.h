// Cuts one Trace into the numbered chunks of a span, the same way every time,
// so an upload that resumes at chunk s sends exactly the events the aggregator
// is missing.
//
// Design:
// 1. Chunk k starts where chunk k-1 ended, from event 0; each is cut by
//    trace::EncodeEventBatchWithin (at most chunk_events events and
//    max_chunk_bytes bytes).
// 2. Boundaries are found lazily and remembered (a few bytes per chunk), so the
//    first pass encodes each chunk once; a resume re-encodes only the chunks it
//    sends, and a resume ahead of the known boundaries encodes the skipped ones
//    once to find them.
#ifndef PROFDIFF_AGENT_CHUNK_CUTTER_H_
#define PROFDIFF_AGENT_CHUNK_CUTTER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <absl/status/statusor.h>

#include "profdiff/v1/trace.pb.h"
#include "trace/trace.h"

namespace profdiff::agent {

// Numbered chunks of `trace`, which must outlive the cutter and stay unchanged.
// Not thread-safe.
class ChunkCutter {
 public:
  ChunkCutter(const trace::Trace& trace, size_t chunk_events,
              size_t max_chunk_bytes);

  // Encodes chunk `sequence` into `batch` and returns true; returns false when
  // the span has fewer chunks (`batch` then holds nothing useful).
  // ResourceExhausted (from trace::EncodeEventBatchWithin) when one event alone
  // encodes to more than max_chunk_bytes.
  absl::StatusOr<bool> Cut(uint64_t sequence, v1::EventBatch& batch);

  // The number of chunks, once Cut has reached the last event; nullopt before.
  std::optional<uint64_t> chunk_count() const;

  // Events in chunk `sequence`, which Cut must have produced before.
  size_t EventsIn(uint64_t sequence) const {
    return begin_[sequence + 1] - begin_[sequence];
  }

 private:
  const trace::Trace& trace_;
  size_t chunk_events_;
  size_t max_chunk_bytes_;
  // begin_[k] is the first event of chunk k; the last entry is where the next
  // unknown chunk begins (== events when every chunk is known).
  std::vector<size_t> begin_ = {0};
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_CHUNK_CUTTER_H_
