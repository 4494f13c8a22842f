// Joins the spans (trace files) of one worker into one Trace, so a worker
// profiled in several windows is analysed once.
#ifndef PROFDIFF_TRACE_SPAN_MERGE_H_
#define PROFDIFF_TRACE_SPAN_MERGE_H_

#include <vector>

#include "trace/trace.h"
#include "trace/trace_append.h"

namespace profdiff::trace {

// Appends the events of every span, in order, into the first. Times are rebased
// onto the first span's base_time_ns; correlation and external ids are offset
// per span (ids restart with each profiler session and must not link across
// spans). Counters add up. An empty input gives an empty Trace.
Trace MergeSpans(std::vector<Trace> spans);

// The shift MergeSpans applies to span number `k` (0-based) whose base time is
// `base_time_ns`, the first span's being `first_base_time_ns`: for a caller
// that merges spans a part at a time.
AppendShift SpanMergeShift(size_t k, int64_t base_time_ns,
                           int64_t first_base_time_ns);

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_SPAN_MERGE_H_
