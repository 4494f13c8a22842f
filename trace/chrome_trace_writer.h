// Writes a Trace back as Kineto-style Chrome-trace JSON that Perfetto, chrome://tracing and
// TensorBoard open; reading the output with KinetoReader gives back the same events.
#ifndef PROFDIFF_TRACE_CHROME_TRACE_WRITER_H_
#define PROFDIFF_TRACE_CHROME_TRACE_WRITER_H_

#include <string>

#include "trace/trace.h"

namespace profdiff::trace {

// Appends the JSON document for `trace` to `out`. Times are written as microseconds with three
// fraction digits (exact nanoseconds), as Kineto does.
void WriteChromeTrace(const Trace& trace, std::string& out);

// Appends `text` as a JSON string literal (quoted, escaped) to `out`.
void AppendJsonString(std::string_view text, std::string& out);

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_CHROME_TRACE_WRITER_H_
