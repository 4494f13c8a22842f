// Reads one trace's event array on several threads: cuts the text where
// event_split.h finds event boundaries, parses the parts at once and appends
// them, in order, into one Trace. What parses a part is the caller's single
// pass (kineto_parser.h), behind PartParser.
//
// Design:
// 1. In place: each cut's comma becomes the "]" that ends one part, and the
// blank before its '{' the "[" that starts the next; the text is put back
// however the read ends, so a one-pass read after it sees the file.
// 2. The text around the array ("{...\"traceEvents\": [" and "], ...}") is
// parsed as one small document with an empty array, so the top-level fields
// are read as in one pass.
// 3. Only what one pass would give is returned: whatever the parts cannot
// prove (a cut that is not between two events, a failing part, a file at
// max_events) gives nullopt, and the caller reads in one pass, which gives the
// exact result or error.
// 4. Parts are prepared on the calling thread, which also parses the first
// part: the parsers and columns come from that thread's heap (a helper
// thread's heap would map large blocks afresh for every file, each new page a
// fault). They are kept between files, with their capacity.
#ifndef PROFDIFF_TRACE_EVENT_PART_READER_H_
#define PROFDIFF_TRACE_EVENT_PART_READER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/status/status.h>
#include <simdjson.h>

#include "trace/kineto_reader.h"
#include "trace/trace.h"
#include "trace/trace_append.h"
#include "trace/trace_file.h"

namespace profdiff::trace {

// The single-pass parser as EventPartReader uses it. Texts are views into a
// buffer readable `capacity` bytes from their first byte (simdjson's padding).
class PartParser {
 public:
  virtual ~PartParser() = default;

  // On the reading thread, before any part is parsed: sizes `parser` for
  // `text_bytes` of JSON.
  virtual absl::Status Prepare(size_t text_bytes,
                               simdjson::ondemand::parser& parser) const = 0;

  // Parses `text`, "[" events "]", with the prepared `parser` into the
  // prepared `out`, and sets `string_id_rows` to the rows whose ids are
  // names (AppendShift::string_id_rows). Called on several threads at once,
  // each with its own parser and out.
  virtual absl::Status ParseEvents(
      std::string_view text, size_t capacity,
      simdjson::ondemand::parser& parser, Trace& out,
      std::vector<StringIdRow>& string_id_rows) const = 0;

  // One part's text and how far past its first byte the buffer is readable.
  struct Text {
    std::string_view text;
    size_t capacity = 0;
  };
  // Parses `texts`, each "[" events "]", one after another on the reading
  // thread with the prepared `parser` into the prepared `out`, as one pass over
  // their events would (one string pool: no ids to shift).
  virtual absl::Status ParseEventsInTurn(const std::vector<Text>& texts,
                                         simdjson::ondemand::parser& parser,
                                         Trace& out) const = 0;
  // On the reading thread: parses `text`, a whole trace, into `out`, and sets
  // `events_offset` to the offset in `text` of its event array's '['.
  virtual absl::Status ParseWhole(std::string_view text, size_t capacity,
                                  Trace& out, size_t& events_offset) = 0;
};

// How many parts to read `json_bytes` of JSON in:
// min(threads, json_bytes / min_part_bytes), at least 1 (one pass). Also 1
// past simdjson's largest document, which one pass refuses and parts would
// not.
size_t EventPartCount(size_t json_bytes, const ReadParallelism& parallelism);
// How many parts to read `json_bytes` of JSON in on one thread:
// json_bytes / in_turn_part_bytes, 1 (one pass) below two parts, with no
// in_turn_part_bytes, or past simdjson's largest document.
size_t InTurnPartCount(size_t json_bytes, const ReadParallelism& parallelism);

// Not thread-safe: one per reader.
class EventPartReader {
 public:
  struct Result {
    Trace trace;
    size_t parts = 0;  // how many parts it was read in, 2 or more
  };

  // Reads the JSON in `buffer` in up to `parts` parts with `part_parser`.
  // nullopt when the text gives no cut, or what the parts give is not provably
  // what one pass gives (see the design note); the caller then reads in one
  // pass. `source` becomes the result's metadata.source. The text in `buffer`
  // is cut while this runs and whole again when it returns.
  // Parts are parsed at once on threads of their own, or in turn on the
  // calling thread (one core: a part's text is still in the cache when its
  // events are read, and the parser's index is a part's size, not the file's).
  enum class Schedule { kAtOnce, kInTurn };
  std::optional<Result> Read(TraceFileBuffer& buffer, std::string_view source,
                             size_t parts, uint64_t max_events,
                             PartParser& part_parser,
                             Schedule schedule = Schedule::kAtOnce);

 private:
  // One part: "[" events "]", in place in the file's buffer, parsed into a
  // Trace of its own.
  struct Part {
    simdjson::ondemand::parser parser;
    Trace trace;
    absl::Status status;
    std::vector<StringIdRow> string_id_rows;
  };

  std::vector<Part> parts_;
  std::string outside_;  // the text around the event array, then padding
};

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_EVENT_PART_READER_H_
