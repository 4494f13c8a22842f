// Appends one Trace's events and arguments to another, re-interning its
// strings. Used to join a worker's spans (span_merge.h) and the parts of one
// file read on several threads (event_part_reader.cc).
#ifndef PROFDIFF_TRACE_TRACE_APPEND_H_
#define PROFDIFF_TRACE_TRACE_APPEND_H_

#include <cstdint>
#include <vector>

#include "trace/trace.h"

namespace profdiff::trace {

// Which id columns of one row hold -1 - StringId (a pid, tid or flow id written
// as a name) rather than a number.
struct StringIdRow {
  static constexpr uint8_t kPid = 1;
  static constexpr uint8_t kTid = 2;
  static constexpr uint8_t kFlowId = 4;
  uint32_t row = 0;
  uint8_t columns = 0;
};

struct AppendShift {
  int64_t time_ns = 0;  // added to every start
  int64_t id_offset =
      0;  // added to correlation, external and flow ids that are not kNoId
  // The rows whose ids are names, in row order. Null: every negative pid/tid is
  // taken as a name.
  const std::vector<StringIdRow>* string_id_rows = nullptr;
};

// Appends `from` after the events of `into`, into its last span; counters and
// the extents of frames left out add up. The strings of
// `from` are interned into `into` in `from`'s id order, so appending the parts
// of one file gives the ids a single read of the file gives.
void AppendTrace(Trace& into, const Trace& from, const AppendShift& shift);

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_TRACE_APPEND_H_
