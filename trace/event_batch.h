// Converts a Trace's events to and from columnar EventBatch protos
// (protos/profdiff/v1/ trace.proto), the form events take on the wire and in
// the store.
//
// Design:
// 1. A batch is self-contained: its own string table and start deltas from 0,
//    so any chunk of a span decodes alone (a resumed upload restarts at any
//    chunk; a bad chunk is refused alone).
// 2. Decoding never trusts the batch: every column length, string index, enum
//    value and argument row is checked before anything is appended, so a
//    refused batch leaves the destination Trace untouched.
// 3. Encoding reuses the batch's capacity (Clear keeps it), so a chunk loop
//    does not allocate per chunk once warm.
// 4. Negative pid/tid/flow ids that name strings (the reader's -1 - StringId
//    for "pid": "Spans") travel as -1 - the index in the batch's string table,
//    so they keep their text.
#ifndef PROFDIFF_TRACE_EVENT_BATCH_H_
#define PROFDIFF_TRACE_EVENT_BATCH_H_

#include <cstddef>
#include <cstdint>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

#include "profdiff/v1/trace.pb.h"
#include "trace/trace.h"

namespace profdiff::trace {

// What a receiver accepts in one batch; crossing a limit is ResourceExhausted
// naming it.
struct EventBatchLimits {
  uint64_t max_events = 1 << 20;   // events in one batch
  uint64_t max_args = 8 << 20;     // argument rows in one batch
  uint64_t max_strings = 1 << 20;  // entries of the string table
  uint64_t max_string_bytes = 1
                              << 20;  // one string (same bound as the reader's)
};

// Encodes events [begin, end) of `trace`, with their arguments, into `batch`
// (cleared first). Requires begin <= end <= trace.events.size().
void EncodeEventBatch(const Trace& trace, size_t begin, size_t end,
                      v1::EventBatch& batch);

// Encodes the events from `begin` on into `batch`: at most `max_events` of
// them, fewer when the encoded batch would exceed `max_bytes` (the count is
// halved until it fits). Returns the end of the range encoded. Deterministic,
// so a restarted sender cuts the same chunks. ResourceExhausted when one event
// alone encodes to more than `max_bytes`.
absl::StatusOr<size_t> EncodeEventBatchWithin(const Trace& trace, size_t begin,
                                              size_t max_events,
                                              size_t max_bytes,
                                              v1::EventBatch& batch);

// Checks that `batch` would decode: every event column has the same length,
// every argument column has the same length, string indices are inside the
// table, kinds/phases/argument keys are known values, argument rows point at
// events in non-decreasing order, strings are valid UTF-8 and strings[0] is
// empty. InvalidArgument naming the column and index that broke a rule;
// ResourceExhausted past `limits`.
absl::Status ValidateEventBatch(const v1::EventBatch& batch,
                                const EventBatchLimits& limits);

// Validates `batch` and appends its events, arguments and strings to `trace`.
// Start times are relative to the same base as the trace's other events. On
// error `trace` is unchanged.
absl::Status AppendEventBatch(const v1::EventBatch& batch,
                              const EventBatchLimits& limits, Trace& trace);

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_EVENT_BATCH_H_
