// The floors the benchmarks compare against: gunzip + a simdjson walk touching
// every field of every event (keys and raw values), converting nothing. The
// on-demand walk is reader_bench's and show_ratio's; the DOM walk (the whole
// document parsed to a tape first) is the one issue 52 names, diff_ratio's.
#ifndef PROFDIFF_BENCH_JSON_FLOOR_H_
#define PROFDIFF_BENCH_JSON_FLOOR_H_

#include <cstddef>

#include <simdjson.h>

#include "trace/trace_file.h"

namespace profdiff::bench {

// Returns the bytes of raw values touched (so the walk cannot be optimised
// away).
size_t WalkEvents(simdjson::ondemand::parser& parser,
                  const trace::TraceFileBuffer& buffer);

// The floor issue 52 names: the same touch of every field through simdjson's
// DOM (the whole document parsed to a tape first), as a reader built on the
// DOM would pay. Padding: `buffer`'s own (TraceFileBuffer keeps
// SIMDJSON_PADDING).
size_t WalkEventsDom(simdjson::dom::parser& parser,
                     const trace::TraceFileBuffer& buffer);

}  // namespace profdiff::bench

#endif  // PROFDIFF_BENCH_JSON_FLOOR_H_
