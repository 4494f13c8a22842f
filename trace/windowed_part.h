// One part of a trace's event array parsed a window at a time into one Trace,
// as one pass over the part would: the first window starts the single pass
// (kineto_parser.h), each later one continues it with the same columns, string
// pool and caches. The parser's index is then a window's size, and each
// window's text is still in the cache when its events are read. Used by the
// readers that never hold a whole part as one document (streamed_events.h,
// inflating_part_reader.h), and for the parts of a text held whole
// (kineto_reader.cc), so that every read in parts leaves plain frames out
// before simdjson sees them (plain_frame_filter.h).
#ifndef PROFDIFF_TRACE_WINDOWED_PART_H_
#define PROFDIFF_TRACE_WINDOWED_PART_H_

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "trace/kineto_parser.h"
#include "trace/plain_frame_filter.h"

namespace profdiff::trace {

class WindowedPart {
 public:
  // Events go to `out`. Where `limits` leave plain frames out, each window's
  // are taken out by `frames` before it is parsed (plain_frame_filter.h).
  WindowedPart(Trace& out, std::string_view source, const ReaderLimits& limits,
               const ArgNameTable& arg_names,
               simdjson::ondemand::parser& parser, PlainFrameFilter& frames)
      : out_(out),
        source_(source),
        limits_(limits),
        arg_names_(arg_names),
        parser_(parser),
        frames_(frames) {}

  // Parses text[start..end], "[" events "]", readable `capacity` bytes from
  // `start`. False when it fails, or when the part has reached max_events: one
  // pass fails on any event after the max_events-th kept one, even one it
  // would drop, so at the limit only one pass can tell.
  bool Parse(const char* text, size_t start, size_t end, size_t capacity);

  // The rows whose ids are names (AppendShift::string_id_rows).
  std::vector<StringIdRow> string_id_rows() const;

 private:
  Trace& out_;
  std::string_view source_;
  const ReaderLimits& limits_;
  const ArgNameTable& arg_names_;
  simdjson::ondemand::parser& parser_;
  PlainFrameFilter& frames_;
  std::optional<kineto::TraceParser> events_;
};

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_WINDOWED_PART_H_
