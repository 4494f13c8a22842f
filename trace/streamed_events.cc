#include "trace/streamed_events.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "base/page_size.h"
#include "trace/event_split.h"
#include "trace/gzip_stream.h"
#include "trace/kineto_parser.h"
#include "trace/trace_file.h"
#include "trace/windowed_part.h"

namespace profdiff::trace {
namespace od = simdjson::ondemand;
using kineto::AllocateParser;

std::optional<Trace> StreamedEventReader::Read(std::string_view compressed,
                                               std::string_view source,
                                               const ReaderLimits& limits,
                                               const ArgNameTable& arg_names,
                                               size_t window_bytes,
                                               od::parser& parser) {
  parts_ = 0;
  // At least a huge page: one fault, where a MiB of small pages is 256.
  const size_t buffer_bytes =
      std::max(window_bytes + kJsonPadding, base::kHugePageBytes);
  if (window_bytes == 0 || !window_.Grow(buffer_bytes, 0).ok() ||
      !AllocateParser(parser, window_bytes, limits, source).ok()) {
    return std::nullopt;
  }
  char* const w = window_.data();
  // What simdjson may read past a part that ends the window: blanks.
  std::memset(w + window_bytes, ' ', kJsonPadding);
  GzipStream stream(compressed, source);
  const uint64_t max_bytes = MaxGunzippedBytes(compressed.size(), limits);
  uint64_t total = 0;
  size_t filled = 0;
  // Tops the window up from the stream; false on damaged gzip or past the
  // limit (reading the file whole says which).
  const auto fill = [&] {
    while (filled < window_bytes && !stream.done()) {
      const absl::StatusOr<size_t> read =
          stream.Read(w + filled, window_bytes - filled);
      if (!read.ok()) return false;
      filled += *read;
      total += *read;
      if (total > max_bytes) return false;
    }
    return true;
  };
  if (!fill()) return std::nullopt;
  const size_t array_begin = EventArrayBegin(std::string_view(w, filled));
  if (array_begin == std::string_view::npos) return std::nullopt;
  outside_.assign(w, array_begin + 1);

  Trace trace;
  WindowedPart events(trace, source, limits, arg_names, parser, frames_);
  size_t start = array_begin;  // w[start] is the '[' of the next part
  // Parses w[start..end] ("[" events "]") into `trace`, after the parts
  // before it.
  const auto parse = [&](size_t end) {
    ++parts_;
    return events.Parse(w, start, end, window_bytes + kJsonPadding - start);
  };
  while (!stream.done()) {
    EventCut cut;
    if (!LastCutIn(std::string_view(w, filled), start, &cut)) {
      return std::nullopt;
    }
    w[cut.comma] = ']';
    if (!parse(cut.comma)) return std::nullopt;
    // The rest moves to the front, a '[' in place of the blank before its
    // first event.
    const size_t keep = cut.next - 1;
    std::memmove(w, w + keep, filled - keep);
    filled -= keep;
    w[0] = '[';
    start = 0;
    if (!fill()) return std::nullopt;
  }
  // The text has ended: the window holds the last events, the array's ']'
  // and the text after it.
  const std::string_view rest(w, filled);
  const size_t array_end = EventArrayEnd(rest, start);
  if (array_end == std::string_view::npos || !parse(array_end)) {
    return std::nullopt;
  }
  outside_.append(rest.substr(array_end));

  // The text around the array, read as one document with an empty array:
  // nothing but the top-level fields may come from it.
  std::optional<TraceMetadata> metadata = kineto::ReadTextAroundEvents(
      outside_, array_begin, source, limits, arg_names, parser);
  if (!metadata.has_value()) return std::nullopt;
  trace.metadata = *std::move(metadata);
  return trace;
}

}  // namespace profdiff::trace
