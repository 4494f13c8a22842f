#include "trace/event_part_reader.h"

#include <algorithm>
#include <functional>
#include <system_error>
#include <thread>
#include <utility>

#include <absl/cleanup/cleanup.h>

#include "trace/event_split.h"

namespace profdiff::trace {

size_t EventPartCount(size_t json_bytes, const ReadParallelism& parallelism) {
  if (json_bytes > simdjson::SIMDJSON_MAXSIZE_BYTES) return 1;
  const size_t parts = std::min<size_t>(
      std::max(parallelism.threads, 1),
      json_bytes / std::max<size_t>(parallelism.min_part_bytes, 1));
  return std::max<size_t>(parts, 1);
}

size_t InTurnPartCount(size_t json_bytes, const ReadParallelism& parallelism) {
  if (json_bytes > simdjson::SIMDJSON_MAXSIZE_BYTES ||
      parallelism.in_turn_part_bytes == 0) {
    return 1;
  }
  return std::max<size_t>(json_bytes / parallelism.in_turn_part_bytes, 1);
}

std::optional<EventPartReader::Result> EventPartReader::Read(
    TraceFileBuffer& buffer, std::string_view source, size_t parts,
    uint64_t max_events, PartParser& part_parser, Schedule schedule) {
  const std::string_view json = buffer.json();
  const EventSplit split = FindEventSplit(json, parts);
  if (split.cuts.empty()) return std::nullopt;
  const size_t n = split.cuts.size() + 1;
  if (parts_.size() < n) parts_.resize(n);

  Trace outside;
  outside.metadata.source = std::string(source);
  outside_.assign(json.substr(0, split.array_begin + 1));
  outside_.append(json.substr(split.array_end));
  const size_t outside_size = outside_.size();
  outside_.resize(outside_size + kJsonPadding, ' ');
  {
    size_t events_offset = 0;
    // Nothing but the top-level fields may come from here: no events, kept or
    // dropped.
    if (!part_parser
             .ParseWhole(std::string_view(outside_.data(), outside_size),
                         outside_.size(), outside, events_offset)
             .ok() ||
        outside.events.size() != 0 || outside.strings.size() != 1 ||
        outside.counters.unsupported_phase_events != 0 ||
        outside.counters.python_frames_left_out != 0 ||
        events_offset != split.array_begin) {
      return std::nullopt;
    }
  }

  char* text = buffer.mutable_data();
  std::vector<char> saved;
  for (const EventCut& cut : split.cuts) {
    saved.push_back(text[cut.comma]);
    saved.push_back(text[cut.next - 1]);
    text[cut.comma] = ']';
    text[cut.next - 1] = '[';
  }
  absl::Cleanup restore = [&] {
    for (size_t c = 0; c < split.cuts.size(); ++c) {
      text[split.cuts[c].comma] = saved[2 * c];
      text[split.cuts[c].next - 1] = saved[2 * c + 1];
    }
  };
  if (schedule == Schedule::kInTurn) {
    std::vector<PartParser::Text> texts;
    size_t largest = 0;
    for (size_t k = 0; k < n; ++k) {
      const size_t begin =
          k == 0 ? split.array_begin : split.cuts[k - 1].next - 1;
      const size_t end = k + 1 == n ? split.array_end : split.cuts[k].comma;
      texts.push_back({.text = std::string_view(text + begin, end + 1 - begin),
                       .capacity = buffer.capacity() - begin});
      largest = std::max(largest, texts.back().text.size());
    }
    Part& part = parts_[0];
    part.trace.ClearKeepingCapacity();
    part.status = part_parser.Prepare(largest, part.parser);
    if (part.status.ok()) {
      part.status =
          part_parser.ParseEventsInTurn(texts, part.parser, part.trace);
    }
    std::move(restore).Invoke();
    if (!part.status.ok()) return std::nullopt;
    Result result{.trace = std::move(part.trace), .parts = n};
    result.trace.metadata = std::move(outside.metadata);
    if (result.trace.events.size() >= max_events) return std::nullopt;
    return result;
  }
  {
    std::vector<std::jthread> threads;
    std::function<void()> first_part;
    for (size_t k = 0; k < n; ++k) {
      const size_t begin =
          k == 0 ? split.array_begin : split.cuts[k - 1].next - 1;
      const size_t end = k + 1 == n ? split.array_end : split.cuts[k].comma;
      const std::string_view part_text(text + begin, end + 1 - begin);
      Part& part = parts_[k];
      part.trace.ClearKeepingCapacity();
      part.string_id_rows.clear();
      part.status = part_parser.Prepare(part_text.size(), part.parser);
      auto parse = [&part_parser, &part, part_text,
                    capacity = buffer.capacity() - begin] {
        if (!part.status.ok()) return;
        part.status = part_parser.ParseEvents(part_text, capacity, part.parser,
                                              part.trace, part.string_id_rows);
      };
      if (k == 0) {
        first_part = parse;  // on this thread, so the result's columns come
                             // from its heap
        continue;
      }
      try {
        threads.emplace_back(parse);
      } catch (const std::system_error&) {
        parse();  // no thread to be had: the same work, in turn
      }
    }
    first_part();
  }  // joins the parts
  std::move(restore).Invoke();

  for (size_t k = 0; k < n; ++k) {
    if (!parts_[k].status.ok()) return std::nullopt;
  }
  Result result{.trace = std::move(parts_[0].trace), .parts = n};
  result.trace.metadata = std::move(outside.metadata);
  for (size_t k = 1; k < n; ++k) {
    AppendTrace(result.trace, parts_[k].trace,
                {.string_id_rows = &parts_[k].string_id_rows});
  }
  // One pass fails on any event after the max_events-th kept one, even one it
  // would drop: at the limit only one pass can tell.
  if (result.trace.events.size() >= max_events) return std::nullopt;
  return result;
}

}  // namespace profdiff::trace
