#include "trace/inflating_part_reader.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "trace/event_split.h"
#include "trace/gzip_stream.h"
#include "trace/kineto_parser.h"
#include "trace/trace_file.h"
#include "trace/windowed_part.h"

namespace profdiff::trace {
namespace {

namespace od = simdjson::ondemand;
using kineto::AllocateParser;
using kineto::TraceParser;

// What the helper has done, as the calling thread may see it.
struct Progress {
  size_t readable = 0;  // text bytes the calling thread may read
  size_t claimed = 0;   // the calling thread reads and writes only before this
  bool inflated = false;  // the whole text is in, padded
  size_t array_end = 0;   // once inflated: the array's ']'
  std::optional<EventCut>
      split;            // once inflated: where the helper's part starts
  bool failed = false;  // read it whole instead
};

// Ends the window that starts at text[start] (its '[') at the last event cut
// before `horizon` and at least a padding past `start` (what a window before
// it may read): the cut's comma becomes the window's ']', the blank before the
// next event the next window's '['. nullopt when there is none.
std::optional<EventCut> CutWindow(char* text, size_t start, size_t horizon) {
  EventCut cut;
  if (horizon <= start + kJsonPadding ||
      !LastCutIn(std::string_view(text, horizon), start + kJsonPadding, &cut)) {
    return std::nullopt;
  }
  text[cut.comma] = ']';
  text[cut.next - 1] = '[';
  return cut;
}

}  // namespace

std::optional<Trace> InflatingPartReader::Read(std::string_view compressed,
                                               std::string_view source,
                                               const ReaderLimits& limits,
                                               const ArgNameTable& arg_names,
                                               size_t window_bytes,
                                               od::parser& parser) {
  // The announced size, one byte of room past it (a text that fills it is
  // longer than announced), and the padding.
  const size_t announced = GunzippedSizeGuess(compressed);
  const uint64_t max_bytes = MaxGunzippedBytes(compressed.size(), limits);
  if (window_bytes == 0 || announced > max_bytes ||
      announced < 4 * window_bytes) {
    return std::nullopt;
  }
  const size_t capacity = announced + 1;
  parts_ = 0;
  if (!text_.Grow(capacity + kJsonPadding, 0).ok() ||
      !AllocateParser(parser, window_bytes + 1, limits, source).ok() ||
      !AllocateParser(helper_parser_, window_bytes + 1, limits, source).ok()) {
    return std::nullopt;
  }
  helper_trace_.ClearKeepingCapacity();
  helper_string_id_rows_.clear();
  char* const text = text_.data();

  std::mutex mu;
  std::condition_variable changed;
  Progress progress;  // guarded by mu
  bool stop = false;  // guarded by mu: the calling thread gave up
  const auto publish = [&](auto&& change) {
    {
      std::lock_guard lock(mu);
      change(progress);
    }
    changed.notify_one();
  };

  // The helper: inflates everything, then splits what the calling thread has
  // not yet reached in two and parses the second half to the array's end.
  const auto inflate_and_parse = [&] {
    const auto fail = [&] { publish([](Progress& p) { p.failed = true; }); };
    GzipStream stream(compressed, source);
    size_t filled = 0;
    while (!stream.done()) {
      {
        std::lock_guard lock(mu);
        if (stop) return;
      }
      // A window at a time, each then readable by the calling thread.
      const absl::StatusOr<size_t> read =
          stream.Read(text + filled, std::min(window_bytes, capacity - filled));
      if (!read.ok() || filled + *read >= capacity) {
        fail();  // damaged, or longer than announced
        return;
      }
      filled += *read;
      publish([&](Progress& p) { p.readable = filled; });
    }
    std::memset(text + filled, ' ', kJsonPadding);
    std::optional<EventCut> split;
    size_t array_end = 0;
    {
      // Both threads parse at about one speed from here: the helper takes the
      // second half of what is left, from the first cut past its middle. It
      // reads and writes only past what the calling thread has claimed, and
      // the calling thread claims no more until it sees the split.
      std::lock_guard lock(mu);
      const size_t claimed = progress.claimed;
      // Read back from the text's end to the array's last event: past the
      // calling thread's cuts, which lie between events.
      array_end = EventArrayEnd(std::string_view(text, filled), 0);
      if (array_end == std::string_view::npos) {
        progress.failed = true;
        changed.notify_one();
        return;
      }
      // Not worth a part of its own when less than two windows are left.
      if (array_end > claimed && array_end - claimed >= 2 * window_bytes) {
        // A view of the rest only: the cut's blanks are read back no further.
        const std::string_view rest(text + claimed, array_end - claimed);
        if (EventCut cut; FirstCutIn(rest, rest.size() / 2, rest.size(), &cut))
          split = EventCut{claimed + cut.comma, claimed + cut.next};
      }
      if (split.has_value()) {
        text[split->comma] = ']';
        text[split->next - 1] = '[';
      }
      progress.readable = filled + kJsonPadding;
      progress.inflated = true;
      progress.array_end = array_end;
      progress.split = split;
    }
    changed.notify_one();
    // Its part, a window at a time: the parser's index a window's size, each
    // window's text still in the cache.
    bool parsed = true;
    if (split.has_value()) {
      WindowedPart part(helper_trace_, source, limits, arg_names,
                        helper_parser_, helper_frames_);
      const size_t readable = filled + kJsonPadding;
      for (size_t start = split->next - 1; parsed;) {
        if (array_end - start <= window_bytes) {
          parsed = part.Parse(text, start, array_end, readable - start);
          break;
        }
        const std::optional<EventCut> cut =
            CutWindow(text, start, start + window_bytes);
        parsed = cut.has_value() &&
                 part.Parse(text, start, cut->comma, readable - start);
        if (cut.has_value()) start = cut->next - 1;
      }
      helper_string_id_rows_ = part.string_id_rows();
    }
    publish([&](Progress& p) { p.failed = !parsed; });
  };
  std::jthread helper;
  try {
    helper = std::jthread(inflate_and_parse);
  } catch (const std::system_error&) {
    return std::nullopt;  // no thread to be had: read whole
  }
  const auto give_up = [&]() -> std::optional<Trace> {
    {
      std::lock_guard lock(mu);
      stop = true;
    }
    helper.join();
    return std::nullopt;
  };

  // This thread's part: from the array's '[' to the split (to the array's end
  // when there is none), a window at a time, each parsed once it and the
  // padding after it are readable. `start` is the '[' of the next window.
  Trace trace;
  WindowedPart part(trace, source, limits, arg_names, parser, frames_);
  size_t array_begin = std::string_view::npos;
  size_t start = 0;
  for (;;) {
    Progress p;
    size_t horizon = 0;  // the window's cut lies before it
    {
      std::unique_lock lock(mu);
      changed.wait(lock, [&] {
        return progress.failed || progress.inflated ||
               (!wait_for_inflation_ &&
                progress.readable >= start + window_bytes + 1 + kJsonPadding);
      });
      p = progress;
      // Claimed before it is cut and read, padding included, so that the
      // helper splits past it.
      const size_t bound = !p.inflated ? p.readable - (1 + kJsonPadding)
                           : p.split.has_value() ? p.split->comma
                                                 : p.array_end;
      horizon = std::min(start + window_bytes, bound);
      progress.claimed = std::max(progress.claimed, horizon + 1 + kJsonPadding);
    }
    if (p.failed) return give_up();
    if (array_begin == std::string_view::npos) {
      // In the first window, as the streamed reader wants it.
      array_begin = EventArrayBegin(std::string_view(text, horizon));
      if (array_begin == std::string_view::npos) return give_up();
      start = array_begin;
      continue;
    }
    if (p.inflated) {
      const size_t part_end =
          p.split.has_value() ? p.split->comma : p.array_end;
      if (part_end < start) return give_up();
      if (part_end - start <= window_bytes) {
        if (!part.Parse(text, start, part_end, p.readable - start))
          return give_up();
        break;
      }
    }
    const std::optional<EventCut> cut = CutWindow(text, start, horizon);
    if (!cut.has_value() ||
        !part.Parse(text, start, cut->comma, p.readable - start)) {
      return give_up();  // no cut within a window, or a failing window
    }
    start = cut->next - 1;
  }

  helper.join();
  Progress p;
  {
    std::lock_guard lock(mu);
    p = progress;
  }
  if (p.failed) return std::nullopt;
  if (p.split.has_value()) {
    AppendTrace(trace, helper_trace_,
                {.string_id_rows = &helper_string_id_rows_});
  }
  // Each part stopped short of max_events; together they may not (as
  // WindowedPart::Parse).
  if (trace.events.size() >= limits.max_events) return std::nullopt;

  const size_t text_bytes = p.readable - kJsonPadding;
  outside_.assign(text, array_begin + 1);
  outside_.append(text + p.array_end, text_bytes - p.array_end);
  std::optional<TraceMetadata> metadata = kineto::ReadTextAroundEvents(
      outside_, array_begin, source, limits, arg_names, parser);
  if (!metadata.has_value()) return std::nullopt;
  trace.metadata = *std::move(metadata);
  parts_ = p.split.has_value() ? 2 : 1;
  return trace;
}

}  // namespace profdiff::trace
