// Where a trace's event array can be cut so that its parts parse on separate threads.
//
// Design:
// 1. A cut is a guess, found in the text without parsing: a comma between two events written on
//    their own lines ("},\n  {"). A raw newline is never inside a JSON string, so the guess is
//    cheap; it is still only a guess (it may fall inside an event's arguments), and the reader
//    proves it by parsing each part (kineto_reader.cc): a wrong guess costs one sequential read.
// 2. Writers that put the whole array on one line (json.dump without indent) give no cuts.
#ifndef PROFDIFF_TRACE_EVENT_SPLIT_H_
#define PROFDIFF_TRACE_EVENT_SPLIT_H_

#include <cstddef>
#include <string_view>
#include <vector>

namespace profdiff::trace {

struct EventCut {
  size_t comma = 0;  // offset of the comma that ends the earlier part
  size_t next = 0;   // offset of the '{' that starts the later part; comma + 1 < next
};

// Up to `parts - 1` cuts, in increasing order, near the points that divide the text after the
// start of the event array into `parts` equal pieces. Fewer (or none) when no cut is found
// within a window of such a point.
std::vector<EventCut> FindEventCuts(std::string_view json, size_t parts);

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_EVENT_SPLIT_H_
