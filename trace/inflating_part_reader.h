// Reads a large gzipped trace on two threads while it is still being inflated.
// Read in parts once it is whole (event_part_reader.h), a file first waits for
// its text: inflating the xDiT trace (62 MB) was 16.7 ms of a 43.8 ms read on
// two threads, with one of them idle. Here a helper thread inflates the whole
// text and then parses the last part of the event array, while the calling
// thread parses the first part a window at a time as the text arrives.
//
// Design:
// 1. The split is made when the text is whole: the helper takes the second
//    half of what the calling thread has not reached, from the first event
//    cut (event_split.h) past its middle, so both finish together whatever a
//    trace's ratio of inflating to parsing (a fixed two-thirds split left the
//    helper 40% behind on the ResNet50 sample). The calling thread claims each
//    window, padding included, before it cuts and reads it, and the helper
//    splits past the claim: neither thread reads what the other writes.
// 2. The text goes into this reader's own buffer of the announced size, which
//    is never grown while the calling thread reads it: a text longer than
//    announced (several gzip members, a torn trailer) is read whole instead.
// 3. Only what one pass would give is returned, as with the other readers:
//    damaged gzip, a limit, a window with no cut, a part that fails to parse or
//    no event array give nullopt, and the caller reads the file whole, which
//    gives the exact result or error.
// 4. The helper's parser and columns are prepared on the calling thread and
//    kept between files (event_part_reader.h, design 4).
#ifndef PROFDIFF_TRACE_INFLATING_PART_READER_H_
#define PROFDIFF_TRACE_INFLATING_PART_READER_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "base/page_buffer.h"
#include "trace/kineto_vocabulary.h"
#include "trace/plain_frame_filter.h"
#include "trace/reader_limits.h"
#include "trace/trace.h"
#include "trace/trace_append.h"

namespace profdiff::trace {

// Not thread-safe: one per reader.
class InflatingPartReader {
 public:
  // Reads gzip `compressed` (named `source`), the calling thread's windows
  // `window_bytes` of text each, with `parser`; nullopt when it must be read
  // whole instead.
  std::optional<Trace> Read(std::string_view compressed,
                            std::string_view source, const ReaderLimits& limits,
                            const ArgNameTable& arg_names, size_t window_bytes,
                            simdjson::ondemand::parser& parser);

  // How many parts the last successful read was parsed in: 2, or 1 when too
  // little was left for the helper once the text was whole.
  size_t parts() const { return parts_; }

  // While set, the calling thread starts only once the whole text is in, so
  // the helper always takes the second half (for tests of its part: on small
  // texts the calling thread can keep up with the inflation and leave it
  // none).
  void WaitForInflationForTesting(bool wait) { wait_for_inflation_ = wait; }

 private:
  base::PageBuffer text_;
  simdjson::ondemand::parser helper_parser_;
  PlainFrameFilter frames_;         // the calling thread's
  PlainFrameFilter helper_frames_;  // the helper's
  Trace helper_trace_;
  std::vector<StringIdRow> helper_string_id_rows_;
  std::string outside_;
  size_t parts_ = 0;
  bool wait_for_inflation_ = false;
};

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_INFLATING_PART_READER_H_
