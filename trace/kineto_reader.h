// Reads PyTorch profiler traces (Kineto Chrome-trace JSON of every era, and the
// legacy profiler's bare event array; .json or .json.gz) into a Trace.
//
// Design:
// 1. One simdjson on-demand pass; each event's fields are visited once and
//    dispatched on the key.
// 2. The reader translates, it does not interpret: categories become kinds,
//    times become exact nanoseconds, arguments become typed columns. Steps and
//    trees belong to analysis/.
// 3. Bad input is an error naming the source, the event index, the byte offset
//    and the field. Unknown fields are skipped; unknown categories are kept as
//    EventKind::kOther and counted.
#ifndef PROFDIFF_TRACE_KINETO_READER_H_
#define PROFDIFF_TRACE_KINETO_READER_H_

#include <memory>
#include <string>
#include <string_view>

#include <absl/status/statusor.h>

#include "trace/reader_limits.h"
#include "trace/trace.h"

namespace profdiff::trace {

// How many threads one file's events may be parsed on: a file of N bytes is cut
// into at most min(threads, N / min_part_bytes) parts of about equal size, only
// where the text shows one event ending and the next beginning on a new line
// (event_split.h). The result is the one a single pass gives, and so are the
// errors: whatever the parts cannot prove (a wrong cut, a failing part, a file
// at max_events) is read again in one pass.
//
// On one thread (one part by the rule above), a file of at least twice
// `in_turn_part_bytes` is read in parts of about that size one after another:
// a part's text is still in the cache when its events are read, and the
// parser's index is a part's size, not the file's (fewer fresh pages to fault
// in). Gzip is then inflated a part at a time and never held whole
// (streamed_events.h). 0 reads such files in one pass.
//
// Gzip read in two parts at once is parsed while it inflates: the calling
// thread reads the first part a window of `in_turn_part_bytes` at a time as the
// text arrives, the thread that inflates it the rest (inflating_part_reader.h).
struct ReadParallelism {
  int threads = 1;
  size_t min_part_bytes = size_t{8} << 20;
  size_t in_turn_part_bytes = size_t{1} << 20;
};

// Reusable reader: keeps its parser and buffers between files. One per thread.
class KinetoReader {
 public:
  explicit KinetoReader(ReaderLimits limits = {},
                        ReadParallelism parallelism = {});
  ~KinetoReader();
  KinetoReader(const KinetoReader&) = delete;
  KinetoReader& operator=(const KinetoReader&) = delete;

  // Reads a trace file. Errors: NotFound, DataLoss (corrupt gzip),
  // InvalidArgument (bad JSON or event), ResourceExhausted (a limit); every
  // message starts with `path`.
  absl::StatusOr<Trace> ReadFile(const std::string& path);

  // Reads trace bytes (JSON, or gzip of JSON) held by the caller; `source`
  // names them in errors.
  absl::StatusOr<Trace> ReadBytes(std::string_view bytes,
                                  std::string_view source);

  // How many parts the last successful read was parsed in (1: a single pass).
  size_t last_read_parts() const;
  // Whether the last successful read streamed its gzip (streamed_events.h)
  // rather than holding the whole text.
  bool last_read_streamed() const;
  // Whether the last successful read parsed gzip in two parts while it was
  // still inflating (inflating_part_reader.h).
  bool last_read_while_inflating() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// One-shot convenience over KinetoReader::ReadBytes.
// Whether a read failed because the input is no trace at all (not JSON, or
// JSON without "traceEvents": a config.json next to the traces) rather than a
// damaged one: a run folder passes over such files.
bool IsNotATrace(const absl::Status& status);

absl::StatusOr<Trace> ReadKinetoTrace(std::string_view bytes,
                                      std::string_view source);

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_KINETO_READER_H_
