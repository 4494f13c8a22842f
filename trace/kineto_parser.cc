#include "trace/kineto_parser.h"

#include <utility>

#include <absl/strings/cord.h>
#include <absl/strings/str_format.h>

#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "trace/trace_file.h"

namespace profdiff::trace::kineto {

absl::Status NotATrace(std::string_view message) {
  absl::Status status = absl::InvalidArgumentError(base::ToAbsl(message));
  status.SetPayload(base::ToAbsl(kNotATracePayload), absl::Cord("1"));
  return status;
}

absl::Status AllocateParser(od::parser& parser, size_t bytes,
                            const ReaderLimits& limits,
                            std::string_view source) {
  if (bytes <= parser.capacity() && parser.max_depth() == limits.max_depth)
    return absl::OkStatus();
  if (parser.allocate(bytes, limits.max_depth) == simdjson::SUCCESS)
    return absl::OkStatus();
  return absl::ResourceExhaustedError(
      base::StrCat(source, ": cannot allocate a parser for ", bytes, " bytes"));
}

std::optional<TraceMetadata> ReadTextAroundEvents(std::string& outside,
                                                  size_t array_begin,
                                                  std::string_view source,
                                                  const ReaderLimits& limits,
                                                  const ArgNameTable& arg_names,
                                                  od::parser& parser) {
  const size_t outside_size = outside.size();
  outside.resize(outside_size + kJsonPadding, ' ');
  if (!AllocateParser(parser, outside_size, limits, source).ok())
    return std::nullopt;
  Trace fields;
  fields.metadata.source = std::string(source);
  TraceParser top_level(fields, std::string_view(outside.data(), outside_size),
                        source, limits, arg_names);
  if (!top_level.Parse(parser, outside.size()).ok() ||
      fields.events.size() != 0 || fields.strings.size() != 1 ||
      fields.counters.unsupported_phase_events != 0 ||
      fields.counters.python_frames_left_out != 0 ||
      top_level.events_offset() != array_begin) {
    return std::nullopt;
  }
  return std::move(fields.metadata);
}

absl::Status TraceParser::Parse(od::parser& parser, size_t capacity,
                                Mode mode) {
  od::document doc;
  const simdjson::padded_string_view padded(json_.data(), json_.size(),
                                            capacity);
  if (auto error = parser.iterate(padded).get(doc))
    return DocumentError(error, nullptr);
  doc_ = &doc;
  od::json_type type;
  if (auto error = doc.type().get(type)) return DocumentError(error, nullptr);
  if (!started_) {
    out_.events.arg_begin.push_back(0);
    started_ = true;
  }
  if (mode == Mode::kEventPart) {
    od::array events;
    if (auto error = doc.get_array().get(events))
      return DocumentError(error, nullptr);
    PD_RETURN_IF_ERROR(ParseEvents(events));
  } else if (type == od::json_type::array) {
    out_.metadata.source_format = SourceFormat::kLegacyJson;
    events_offset_ = json_.find_first_not_of(" \t\r\n");
    od::array events;
    if (auto error = doc.get_array().get(events))
      return DocumentError(error, nullptr);
    PD_RETURN_IF_ERROR(ParseEvents(events));
  } else if (type == od::json_type::object) {
    out_.metadata.source_format = SourceFormat::kKinetoJson;
    PD_RETURN_IF_ERROR(ParseTopObject(doc));
  } else {
    return absl::InvalidArgumentError(
        base::StrCat(source_,
                     ": expected a JSON object with \"traceEvents\" or an "
                     "array of events"));
  }
  // current_location() is in bounds only while tokens remain after the
  // top-level value.
  const char* trailing = nullptr;
  if (!doc.current_location().get(trailing)) {
    return absl::InvalidArgumentError(
        base::StrCat(source_, ": byte ", Offset(trailing),
                     ": unexpected content after the trace"));
  }
  return absl::OkStatus();
}

size_t TraceParser::Offset(const char* p) const {
  return p == nullptr ? json_.size() : static_cast<size_t>(p - json_.data());
}

size_t TraceParser::Offset(
    simdjson::simdjson_result<const char*> location) const {
  const char* p = nullptr;
  if (std::move(location).get(p)) return json_.size();
  return Offset(p);
}

absl::Status TraceParser::DocumentError(simdjson::error_code error,
                                        const char* at) {
  // Not JSON at all (an image, a binary profile renamed .json): say what it
  // starts with rather than where a JSON parser gave up.
  std::string_view start = json_;
  if (start.starts_with("\xEF\xBB\xBF")) start.remove_prefix(3);  // BOM
  const size_t first = start.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    return absl::InvalidArgumentError(base::StrCat(
        source_, ": no JSON (", json_.size(), " bytes of white space)"));
  }
  if (start[first] != '{' && start[first] != '[') {
    std::string hex;
    for (unsigned char c : json_.substr(0, 8))
      hex += absl::StrFormat("%s%02x", hex.empty() ? "" : " ", c);
    return NotATrace(
        base::StrCat(source_, ": not JSON (starts with bytes ", hex, ")"));
  }
  // A file cut short: simdjson's first pass finds the open string or
  // container without a position.
  if (error == simdjson::UNCLOSED_STRING) {
    return absl::InvalidArgumentError(base::StrCat(
        source_, ": truncated at byte ", json_.size(),
        " of the document (it ends inside a string; was the file cut "
        "short?)"));
  }
  if (error == simdjson::INCOMPLETE_ARRAY_OR_OBJECT) {
    return absl::InvalidArgumentError(base::StrCat(
        source_, ": truncated at byte ", json_.size(),
        " of the document (an array or object is never closed; was the "
        "file cut short?)"));
  }
  if (error == simdjson::UTF8_ERROR) {
    const size_t offset = FirstInvalidUtf8(json_);
    return absl::InvalidArgumentError(
        base::StrCat(source_, ": byte ", offset, ": invalid UTF-8 ",
                     base::QuoteBytes(json_.substr(offset, 4)),
                     " (traces must be UTF-8 JSON)"));
  }
  size_t offset = at != nullptr     ? Offset(at)
                  : doc_ != nullptr ? Offset(doc_->current_location())
                                    : 0;
  if (error == simdjson::CAPACITY) {
    return absl::ResourceExhaustedError(
        base::StrCat(source_, ": JSON of ", json_.size(),
                     " bytes is over the parser capacity"));
  }
  if (error == simdjson::DEPTH_ERROR) {
    return absl::ResourceExhaustedError(base::StrCat(
        source_, ": byte ", offset, ": JSON nesting deeper than max_depth ",
        limits_.max_depth));
  }
  return absl::InvalidArgumentError(
      base::StrCat(source_, ": byte ", offset,
                   ": invalid JSON: ", simdjson::error_message(error)));
}

std::string TraceParser::EventPrefix(const char* at) const {
  return base::StrCat(source_, ": event #", event_index_, " (byte ", Offset(at),
                      ")");
}

absl::Status TraceParser::EventJsonError(simdjson::error_code error,
                                         const char* at) {
  if (error == simdjson::DEPTH_ERROR) return DocumentError(error, at);
  if (doc_ != nullptr) {
    const char* here = nullptr;
    if (!doc_->current_location().get(here)) at = here;
  }
  if (Offset(at) >= json_.size()) {
    return absl::InvalidArgumentError(base::StrCat(
        source_, ": truncated at byte ", json_.size(),
        " of the document (after event #", event_index_,
        " the event array is never closed; was the file cut short?)"));
  }
  return absl::InvalidArgumentError(base::StrCat(
      EventPrefix(at), ": invalid JSON: ", simdjson::error_message(error)));
}

absl::Status TraceParser::FieldError(std::string_view field, const char* at,
                                     std::string_view expected,
                                     std::string_view found) {
  return absl::InvalidArgumentError(
      base::StrCat(EventPrefix(at), ": field \"", field, "\": expected ",
                   expected, ", got ", base::QuoteBytes(found)));
}

absl::Status TraceParser::FieldError(std::string_view field, const char* at,
                                     std::string_view expected,
                                     od::value& value) {
  return FieldError(field, at, expected,
                    TrimTrailingSpace(value.raw_json_token()));
}

}  // namespace profdiff::trace::kineto
