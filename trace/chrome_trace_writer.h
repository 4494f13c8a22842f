// Writes a Trace back as Kineto-style Chrome-trace JSON that Perfetto,
// chrome://tracing and TensorBoard open; reading the output with KinetoReader
// gives back the same events.
#ifndef PROFDIFF_TRACE_CHROME_TRACE_WRITER_H_
#define PROFDIFF_TRACE_CHROME_TRACE_WRITER_H_

#include <string>

#include "trace/trace.h"

namespace profdiff::trace {

// Appends the JSON document for `trace` to `out`. Times are written as
// microseconds with three fraction digits (exact nanoseconds), as Kineto does.
void WriteChromeTrace(const Trace& trace, std::string& out);

// The same document written in pieces, for a writer that has the events a part
// at a time (an export read chunk by chunk): Begin with the metadata, the
// events of any number of Traces in order, End. Begin + Append(all of a trace)
// + End is byte for byte WriteChromeTrace.
class ChromeTraceStream {
 public:
  // Appends the document's head (the metadata) to `out`.
  void Begin(const TraceMetadata& metadata, std::string& out);
  // Appends events [begin, end) of `trace` (names, arguments and named ids come
  // from `trace`).
  void Append(const Trace& trace, size_t begin, size_t end, std::string& out);
  // Appends the document's tail.
  void End(std::string& out);

 private:
  bool first_event_ = true;
};

// Appends `text` as a JSON string literal (quoted, escaped) to `out`.
void AppendJsonString(std::string_view text, std::string& out);

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_CHROME_TRACE_WRITER_H_
