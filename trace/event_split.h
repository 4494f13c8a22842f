// Where a trace's event array can be cut so that its parts parse on separate
// threads.
//
// Design:
// 1. Everything here is a guess read off the text without parsing: the array's
//    brackets, and cuts at commas between two events written on their own lines
//    ("},\n  {"). A raw newline is never inside a JSON string, so guessing is
//    cheap; a guess may still be wrong (a cut inside an event's arguments), and
//    the reader proves every one by parsing (event_part_reader.cc): a wrong
//    guess costs one sequential read, never a wrong result.
// 2. Writers that put the whole array on one line (json.dump without indent)
//    give no cuts.
#ifndef PROFDIFF_TRACE_EVENT_SPLIT_H_
#define PROFDIFF_TRACE_EVENT_SPLIT_H_

#include <cstddef>
#include <string_view>
#include <vector>

namespace profdiff::trace {

struct EventCut {
  size_t comma = 0;  // offset of the comma that ends the earlier part
  size_t next =
      0;  // offset of the '{' that starts the later part; comma + 1 < next
};

struct EventSplit {
  size_t array_begin = 0;      // offset of the event array's '['
  size_t array_end = 0;        // offset of its ']'
  std::vector<EventCut> cuts;  // increasing, strictly inside the array
};

// The cut at the newline at `json[newline]`, when the text around it reads
// "}<ws>,<ws>\n<ws>{".
bool CutAtNewline(std::string_view json, size_t newline, EventCut* cut);

// The last cut in `json` whose comma lies after `from`; false when there is
// none.
bool LastCutIn(std::string_view json, size_t from, EventCut* cut);

// The first cut in `json` at a newline in [from, limit); false when there is
// none.
bool FirstCutIn(std::string_view json, size_t from, size_t limit,
                EventCut* cut);

// The event array's '[': the first after "traceEvents", or the text's first
// byte when that is '[' (the legacy bare array). npos when there is none.
size_t EventArrayBegin(std::string_view json);
// Its ']': the last after `begin` that follows an event's '}'. npos when there
// is none.
size_t EventArrayEnd(std::string_view json, size_t begin);

// Up to `parts - 1` cuts near the points that divide the event array into
// `parts` equal pieces; fewer (or none) when no cut is found within a window of
// such a point, or no array is found.
EventSplit FindEventSplit(std::string_view json, size_t parts);

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_EVENT_SPLIT_H_
