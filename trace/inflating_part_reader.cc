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

namespace profdiff::trace {
namespace {

namespace od = simdjson::ondemand;
using kineto::AllocateParser;
using kineto::TraceParser;

// What the helper has done, as the calling thread may see it.
struct Progress {
  size_t readable = 0;            // text bytes the calling thread may read
  bool decided = false;           // whether there is a split is known
  std::optional<EventCut> split;  // the first cut past the split point
  bool inflated = false;          // the whole text is in, padded
  size_t array_end = 0;           // once inflated: the array's ']'
  bool failed = false;            // read it whole instead
  bool helper_done = false;       // the helper has parsed its part (or won't)
};

// The first cut whose comma lies at or after `from` in `text`.
std::optional<EventCut> FirstCutFrom(std::string_view text, size_t from) {
  for (size_t at = text.find('\n', from); at != std::string_view::npos;
       at = text.find('\n', at + 1)) {
    EventCut cut;
    if (CutAtNewline(text, at, &cut) && cut.comma >= from) return cut;
  }
  return std::nullopt;
}

// Parses one part of the event array, a window at a time, into one Trace as
// one pass over the part would (as streamed_events.h reads its windows).
class WindowedPart {
 public:
  WindowedPart(Trace& out, std::string_view source, const ReaderLimits& limits,
               const ArgNameTable& arg_names, od::parser& parser,
               size_t reserve_bytes)
      : out_(out),
        source_(source),
        limits_(limits),
        arg_names_(arg_names),
        parser_(parser),
        reserve_bytes_(reserve_bytes) {}

  // Parses text[start..end], "[" events "]", readable `capacity` bytes from
  // `start`; false when it fails or reaches max_events.
  bool Parse(const char* text, size_t start, size_t end, size_t capacity) {
    const std::string_view window(text + start, end + 1 - start);
    absl::Status parsed;
    if (!events_.has_value()) {
      events_.emplace(out_, window, source_, limits_, arg_names_);
      events_->set_reserve_bytes(reserve_bytes_);
      parsed = events_->Parse(parser_, capacity, TraceParser::Mode::kEventPart);
    } else {
      parsed = events_->ParseNextPart(parser_, window, capacity);
    }
    return parsed.ok() && out_.events.size() < limits_.max_events;
  }

  std::vector<StringIdRow> string_id_rows() const {
    return events_.has_value() ? events_->string_id_rows()
                               : std::vector<StringIdRow>{};
  }

 private:
  Trace& out_;
  std::string_view source_;
  const ReaderLimits& limits_;
  const ArgNameTable& arg_names_;
  od::parser& parser_;
  size_t reserve_bytes_;
  std::optional<TraceParser> events_;
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
  const size_t target = static_cast<size_t>(announced * kFirstPartShare);
  if (!text_.Grow(capacity + kJsonPadding, 0).ok() ||
      !AllocateParser(parser, window_bytes + 1, limits, source).ok() ||
      !AllocateParser(helper_parser_, window_bytes + 1, limits, source).ok()) {
    return std::nullopt;
  }
  helper_trace_.ClearKeepingCapacity();
  helper_trace_.events.Reserve((announced - target) /
                               kineto::kBytesPerEventEstimate);
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

  // The helper: inflates everything, picks the split on the way, then parses
  // from it to the array's end.
  const auto inflate_and_parse = [&] {
    const auto fail = [&] { publish([](Progress& p) { p.failed = true; }); };
    GzipStream stream(compressed, source);
    size_t filled = 0;
    std::optional<EventCut> split;
    bool decided = false;
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
      // The split: the first cut within a window past the point (a window with
      // no cut is read whole anyway).
      if (!decided && (filled >= target + window_bytes || stream.done())) {
        // Read from the split point on, and back from there over blanks only:
        // the calling thread's cuts so far lie before it, each before a '{'.
        split = FirstCutFrom(std::string_view(text, filled), target);
        if (split.has_value()) {
          text[split->comma] = ']';
          text[split->next - 1] = '[';
        }
        decided = true;
      }
      publish([&](Progress& p) {
        p.readable = filled;
        p.decided = decided;
        p.split = split;
      });
    }
    std::memset(text + filled, ' ', kJsonPadding);
    const size_t array_end = EventArrayEnd(std::string_view(text, filled),
                                           split.has_value() ? split->next : 0);
    if (array_end == std::string_view::npos) {
      fail();
      return;
    }
    publish([&](Progress& p) {
      p.readable = filled + kJsonPadding;
      p.inflated = true;
      p.array_end = array_end;
    });
    // Its part, a window at a time: the parser's index a window's size, each
    // window's text still in the cache.
    bool parsed = true;
    if (split.has_value()) {
      WindowedPart part(helper_trace_, source, limits, arg_names,
                        helper_parser_, 0);  // reserved above
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
    publish([&](Progress& p) {
      p.failed = !parsed;
      p.helper_done = true;
    });
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
  WindowedPart part(trace, source, limits, arg_names, parser, announced);
  size_t array_begin = std::string_view::npos;
  size_t start = 0;
  for (;;) {
    Progress p;
    {
      std::unique_lock lock(mu);
      changed.wait(lock, [&] {
        const Progress& now = progress;
        if (now.failed || now.inflated) return true;
        const size_t want = start + window_bytes + 1 + kJsonPadding;
        if (!now.decided) return want <= target && now.readable >= want;
        if (now.split.has_value()) {
          return now.readable >=
                 std::min(want, now.split->comma + 1 + kJsonPadding);
        }
        return now.readable >= want;
      });
      p = progress;
    }
    if (p.failed) return give_up();
    // Text this thread may read: before the split point until the split is
    // known (the helper writes its cut there).
    const size_t text_bytes =
        p.inflated ? p.readable - kJsonPadding : p.readable;
    const size_t stable = p.decided ? text_bytes : std::min(text_bytes, target);
    if (array_begin == std::string_view::npos) {
      array_begin = EventArrayBegin(std::string_view(text, stable));
      if (array_begin == std::string_view::npos ||
          array_begin + kJsonPadding >= stable) {
        return give_up();
      }
      start = array_begin;
      continue;  // waits for a window from there
    }
    std::optional<size_t> part_end;
    if (p.decided && p.split.has_value()) {
      part_end = p.split->comma;
    } else if (p.inflated) {
      part_end = p.array_end;
    }
    if (part_end.has_value() && *part_end - start <= window_bytes &&
        *part_end + 1 + kJsonPadding <= p.readable) {
      if (!part.Parse(text, start, *part_end, p.readable - start))
        return give_up();
      break;
    }
    // A window, with its padding, within what is readable.
    const std::optional<EventCut> cut = CutWindow(
        text, start,
        std::min({start + window_bytes, part_end.value_or(stable),
                  p.readable - std::min(p.readable, 1 + kJsonPadding)}));
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
  if (p.failed || !p.helper_done) return std::nullopt;
  if (p.split.has_value()) {
    AppendTrace(trace, helper_trace_,
                {.string_id_rows = &helper_string_id_rows_});
  }
  // One pass fails on any event after the max_events-th kept one, even one it
  // would drop: at the limit only one pass can tell.
  if (trace.events.size() >= limits.max_events) return std::nullopt;

  const size_t text_bytes = p.readable - kJsonPadding;
  outside_.assign(text, array_begin + 1);
  outside_.append(text + p.array_end, text_bytes - p.array_end);
  std::optional<TraceMetadata> metadata = kineto::ReadTextAroundEvents(
      outside_, array_begin, source, limits, arg_names, parser);
  if (!metadata.has_value()) return std::nullopt;
  trace.metadata = *std::move(metadata);
  return trace;
}

}  // namespace profdiff::trace
