// Limits on what a trace file may make the reader allocate (crossing one is
// ResourceExhausted naming the limit), and what the reader may leave out.
#ifndef PROFDIFF_TRACE_READER_LIMITS_H_
#define PROFDIFF_TRACE_READER_LIMITS_H_

#include <cstdint>

namespace profdiff::trace {

struct ReaderLimits {
  uint64_t max_file_bytes = uint64_t{4} << 30;  // on disk, compressed or not
  uint64_t max_json_bytes =
      uint64_t{8} << 30;  // after gunzip; the largest real trace is 87 MB
  // Decompression-bomb guard: gunzipped JSON past 64 MiB may be at most this
  // many times its compressed size (real traces compress 5-30x; 3 GiB of blanks
  // compress 1000x).
  uint64_t max_gzip_ratio = 200;
  uint64_t max_events = 100'000'000;
  uint32_t max_string_bytes = 1 << 20;  // one name, category or shape list
  uint32_t max_depth = 64;              // JSON nesting (Kineto uses 5)
  // Whether plain Python frames, complete "python_function" events that are
  // not "nn.Module: " ranges, are kept. A profile reads only when they ran
  // (Trace::left_out_frames), and a trace recorded with_stack is mostly frames
  // (201k of the xDiT trace's 225k events): the CLI leaves them out. Left out,
  // a frame written in Kineto's field order ("ph", "cat", "name" first) is
  // passed over from its name on but for "ts" and "dur": its other fields are
  // neither converted nor checked, and a key repeated after them is not seen.
  bool keep_python_frames = true;
};

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_READER_LIMITS_H_
