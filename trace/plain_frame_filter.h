// Takes plain Python frames out of a part of the event array before simdjson
// indexes it. A trace recorded with_stack is mostly frames (82% of the xDiT
// trace's text), and a read that leaves them out (ReaderLimits::
// keep_python_frames) needs of each only its two times. Indexing and walking
// them was most of such a read; matching them here costs a fraction of it.
//
// Design:
// 1. Only a frame that one pass would certainly leave out is taken out: it is
//    found by Kineto's spelling of its first three fields
//    ("ph": "X", "cat": "python_function", "name": "), and then matched whole
//    by a strict subset of JSON (plain strings, numbers, literals, one level of
//    object), with exactly the checks one pass makes of such a frame: its
//    name's length and UTF-8, "ts" and "dur" read by the same function, a
//    non-negative duration. Anything else stays in the text for simdjson,
//    which gives the exact result or error. Limits under which one pass would
//    refuse any frame (a max_string_bytes below "python_function", too little
//    depth) turn the filter off (Applies).
// 2. A run of frames taken out must have been between two events of the
//    array. Where one was followed by an event, the run leaves a seam at that
//    event's '{', and the parser checks that every seam is the start of one of
//    the array's events (TraceParser::set_seams): a frame-shaped object inside
//    another event's arguments, or inside a string of a damaged text, fails
//    the part, which is then read in one pass. A run that ends the part needs
//    no seam: the part parses only if what is before its final ']' is the
//    array's last element. It goes with the comma before it, unless no
//    element comes before that comma (then it stays, and the part fails as
//    one pass does).
// 3. The frames' count and extent are those LeaveOutFrame would have added.
// 4. A frame is matched the cheapest way that proves it. First against a
//    copy of the last frame the layout matched: most frames' text past the
//    name is that frame's but for digits in the same places (95% of the xDiT
//    trace's frames, 77% of the H200 pair's), which a range check of each
//    byte proves (a vector of 32 bytes at a time where the CPU has AVX2,
//    else 16), with a check for leading zeros and the two times read. Else by
//    the layout learnt (FrameLayout), and that frame kept; else field by field,
//    and its layout learnt.
#ifndef PROFDIFF_TRACE_PLAIN_FRAME_FILTER_H_
#define PROFDIFF_TRACE_PLAIN_FRAME_FILTER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/page_buffer.h"
#include "trace/reader_limits.h"
#include "trace/trace.h"

namespace profdiff::trace {

// Where the values of a frame a layout matched lie, from just past its name's
// closing quote.
struct FrameValues {
  uint32_t size = 0;  // to one past its '}'
  uint32_t ts_at = 0;
  uint32_t ts_size = 0;
  uint32_t dur_at = 0;
  uint32_t dur_size = 0;
  std::vector<uint32_t> numbers;  // where each other number starts
};

// A matched frame's text past its name, kept to match the frames after it
// that are spelt as it but for digits in the same places (design 4).
class FrameTemplate {
 public:
  // Keeps the frame whose text past its name starts at `body`, its values
  // as a layout found them.
  void Learn(const char* body, const FrameValues& values);
  // Matches a frame from `c`, just past its name's closing quote: one past
  // its '}', its times in *ts_ns and *dur_ns; nullptr when it differs from
  // the frame kept (or none is).
  const char* Match(const char* c, const char* limit, int64_t* ts_ns,
                    int64_t* dur_ns) const;

 private:
  // Per byte of the frame's text: the lowest byte it matches, and how far
  // above that the bytes it matches go ('0' and 9 for a digit, else the byte
  // and 0).
  std::string low_;
  std::string span_;
  FrameValues values_;
};

// What follows a plain frame's name, learnt from a frame matched field by
// field: the text between its numbers, and which of them are its times. A
// frame whose text after its name differs only in its numbers is then matched
// by comparing that text, which is most of the filter's speed: one writer
// spells every frame alike.
class FrameLayout {
 public:
  enum class Value : uint8_t { kNumber, kTs, kDur, kEnd };

  void Clear() {
    text_.clear();
    pieces_.clear();
  }
  // Appends the text [from, to), then a value of kind `value` (kEnd: the
  // frame ends with that text).
  void Add(const char* from, const char* to, Value value);
  // Matches a frame from `c`, just past its name's closing quote: one past
  // its '}', its times in *ts_ns and *dur_ns, where its values lie in
  // *values; nullptr when it differs.
  const char* Match(const char* c, const char* limit, int64_t* ts_ns,
                    int64_t* dur_ns, FrameValues* values) const;

 private:
  struct Piece {
    uint32_t text_end;  // the piece's text ends here in text_
    Value value;        // what follows it
  };
  std::string text_;
  std::vector<Piece> pieces_;
};

// Not thread-safe: one per part being read; keeps its buffer between parts.
class PlainFrameFilter {
 public:
  // Copies text[start..end], "[" events "]", without its plain frames. False
  // when no buffer could be had (the part is then read as it is).
  bool Filter(const char* text, size_t start, size_t end,
              const ReaderLimits& limits);

  // The part without its frames, and the bytes readable from its start
  // (simdjson's padding included).
  std::string_view json() const { return {buffer_.data(), size_}; }
  size_t capacity() const { return buffer_.size(); }
  // Offsets in json() where an event must start (design 2).
  const std::vector<uint32_t>& seams() const { return seams_; }
  int64_t frames() const { return frames_; }
  // Of the frames taken out, how many the layout learnt or the frame kept
  // matched (the rest were matched field by field).
  int64_t frames_by_layout() const { return frames_by_layout_; }
  // Of those, how many were spelt as the frame kept (design 4).
  int64_t frames_like_kept() const { return frames_like_kept_; }
  const FrameExtent& extent() const { return extent_; }

  // Whether `limits` let frames be taken out here at all: frames left out,
  // and an object of arguments within the depth one pass allows.
  static bool Applies(const ReaderLimits& limits);

 private:
  // How a frame was matched (design 4).
  enum class MatchedBy : uint8_t { kKeptFrame, kLayout, kFields };
  // MatchPlainFrame, the cheapest way that proves it (design 4).
  const char* Match(const char* name, const char* limit,
                    uint32_t max_string_bytes, int64_t* start_ns,
                    int64_t* end_ns, MatchedBy* by);

  base::PageBuffer buffer_;
  FrameLayout layout_;      // of the last frame matched field by field
  FrameLayout candidate_;   // learnt as a frame is matched field by field
  FrameTemplate template_;  // the last frame the layout matched
  FrameValues values_;      // of the frame being matched by the layout
  size_t size_ = 0;
  std::vector<uint32_t> seams_;
  int64_t frames_ = 0;
  int64_t frames_by_layout_ = 0;
  int64_t frames_like_kept_ = 0;
  FrameExtent extent_;
};

// Matches the plain frame whose name starts at `name` (just past the opening
// quote of Kineto's "name": "), its object having begun before it; `limit` is
// the end of readable text. Returns one past its closing '}', or nullptr when
// it is not certainly a frame one pass leaves out (design 1). Exposed for
// tests.
const char* MatchPlainFrame(const char* name, const char* limit,
                            uint32_t max_string_bytes, int64_t* start_ns,
                            int64_t* end_ns);

namespace plain_frame_filter_internal {
// Whether each of the n >= 16 bytes at `c` lies in its range, low[i] to
// low[i] + span[i] (FrameTemplate's compare): on 16-byte vectors, and on the
// widest this CPU has (32 bytes where it has AVX2: the compare is the
// filter's largest share). Exposed for tests.
bool InRanges16(const char* c, const char* low, const char* span, size_t n);
bool InRangesWidest(const char* c, const char* low, const char* span, size_t n);
}  // namespace plain_frame_filter_internal

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_PLAIN_FRAME_FILTER_H_
