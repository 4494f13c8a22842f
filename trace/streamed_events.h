// Reads a gzipped trace without holding its text: inflates a window of it at a
// time (gzip_stream.h) and parses the window's whole events while they are
// still in the cache, one part after another into one Trace, as the in-turn
// parts of event_part_reader.h do with a text held whole. A cold one-shot read
// then never faults in the gunzipped text (62 MB for the xDiT trace).
//
// Design:
// 1. Cuts are event_split.h's guesses ("},\n{" between two events written on
//    their own lines), the last one in each window; each part is parsed as
//    "[" events "]", which proves the cut. The text around the event array
//    (up to its '[', and from its ']') is parsed as one small document, as
//    event_part_reader.cc does.
// 2. Only what a one-pass read gives is returned. Whatever the stream cannot
//    prove gives nullopt, and the caller reads the file whole, which gives the
//    exact result or error: no event array in the first window, a window with
//    no cut (one event larger than it, or an array on one line), a part that
//    fails to parse, damaged gzip (its CRC is only known at the end), a limit
//    reached.
#ifndef PROFDIFF_TRACE_STREAMED_EVENTS_H_
#define PROFDIFF_TRACE_STREAMED_EVENTS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "base/page_buffer.h"
#include "trace/kineto_vocabulary.h"
#include "trace/plain_frame_filter.h"
#include "trace/reader_limits.h"
#include "trace/trace.h"

namespace profdiff::trace {

// Keeps its window between files. Not thread-safe: one per reader.
class StreamedEventReader {
 public:
  // Reads gzip `compressed` (named `source`) in windows of `window_bytes` of
  // text with `parser`; nullopt when it must be read whole instead.
  std::optional<Trace> Read(std::string_view compressed,
                            std::string_view source, const ReaderLimits& limits,
                            const ArgNameTable& arg_names, size_t window_bytes,
                            simdjson::ondemand::parser& parser);

  // How many parts the last successful read was parsed in.
  size_t parts() const { return parts_; }

 private:
  base::PageBuffer window_;
  PlainFrameFilter frames_;
  std::string outside_;  // the text around the event array, then padding
  size_t parts_ = 0;
};

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_STREAMED_EVENTS_H_
