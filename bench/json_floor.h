// The floors the benchmarks compare against: libdeflate's gunzip + a simdjson
// walk touching every field of every event (keys and raw values), converting
// nothing. The on-demand walk is reader_bench's and show_ratio's; the DOM walk
// (the whole document parsed to a tape first) is the one issue 52 names,
// diff_ratio's. The floor gunzips with libdeflate, as the issue names it,
// whatever the reader uses.
#ifndef PROFDIFF_BENCH_JSON_FLOOR_H_
#define PROFDIFF_BENCH_JSON_FLOOR_H_

#include <cstddef>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "base/page_buffer.h"

namespace profdiff::bench {

// A trace file's JSON as the floor reads it: gunzipped by libdeflate into a
// buffer padded for simdjson, kept from file to file as a reader keeps its
// own.
class FloorText {
 public:
  // False when the file cannot be read, or its gzip is damaged.
  bool Load(const std::string& path);

  std::string_view json() const { return {json_.data(), size_}; }
  const char* data() const { return json_.data(); }
  // Readable bytes from data(): the text and simdjson's padding.
  size_t capacity() const { return json_.size(); }

 private:
  base::PageBuffer file_;
  base::PageBuffer json_;
  size_t size_ = 0;
};

// Returns the bytes of raw values touched (so the walk cannot be optimised
// away).
size_t WalkEvents(simdjson::ondemand::parser& parser, const FloorText& text);

// The floor issue 52 names: the same touch of every field through simdjson's
// DOM (the whole document parsed to a tape first), as a reader built on the
// DOM would pay.
size_t WalkEventsDom(simdjson::dom::parser& parser, const FloorText& text);

}  // namespace profdiff::bench

#endif  // PROFDIFF_BENCH_JSON_FLOOR_H_
