// Over 700 lines because the single-pass TraceParser is one concern: every
// field of every event visited once, with the errors that locate it. Its
// lexing (json_text.h), vocabulary (kineto_vocabulary.h) and multi-threaded
// driver (event_part_reader.h) have their own files.
#include "trace/kineto_reader.h"

#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/strings/cord.h>
#include <absl/strings/str_format.h>
#include <simdjson.h>

#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "trace/decimal_time.h"
#include "trace/event_part_reader.h"
#include "trace/json_text.h"
#include "trace/kineto_vocabulary.h"
#include "trace/recent_strings.h"
#include "trace/trace_append.h"
#include "trace/trace_file.h"

namespace profdiff::trace {
namespace {

constexpr std::string_view kNotATracePayload = "type.profdiff.dev/not-a-trace";

absl::Status NotATrace(std::string_view message) {
  absl::Status status = absl::InvalidArgumentError(base::ToAbsl(message));
  status.SetPayload(base::ToAbsl(kNotATracePayload), absl::Cord("1"));
  return status;
}

namespace od = simdjson::ondemand;

// Kineto writes 150-450 bytes per event. Reserving for 1 per 128 bytes almost
// never reallocates (which would copy every column), and capacity never written
// costs no memory.
constexpr size_t kBytesPerEventEstimate = 128;

// Fields of the event being parsed, committed to the table once the object is
// done.
struct PendingEvent {
  std::string_view ph;
  std::string_view category;
  bool has_category = false;
  std::string_view name;
  int64_t pid = 0;
  int64_t tid = 0;
  int64_t ts_ns = 0;
  bool has_ts = false;
  int64_t dur_ns = 0;
  bool has_dur = false;
  int64_t flow_id = 0;
  uint8_t string_id_columns = 0;  // StringIdRow bits: ids written as names
  bool binding_enclosing = false;
  int64_t correlation = kNoId;
  int64_t external_id = kNoId;
  int64_t sequence_number = kNoSequence;
  int64_t forward_thread_id = kNoId;
  int64_t python_id = kNoSequence;
  int64_t python_parent_id = kNoSequence;
  StringId input_shapes;
};

// The PendingEvent field an integer-valued argument fills, or nullptr for other
// slots.
int64_t* IntegerColumn(ArgSlot slot, PendingEvent& p) {
  switch (slot) {
    case ArgSlot::kCorrelation:
      return &p.correlation;
    case ArgSlot::kExternalId:
      return &p.external_id;
    case ArgSlot::kSequenceNumber:
      return &p.sequence_number;
    case ArgSlot::kForwardThreadId:
      return &p.forward_thread_id;
    case ArgSlot::kPythonId:
      return &p.python_id;
    case ArgSlot::kPythonParentId:
      return &p.python_parent_id;
    default:
      return nullptr;
  }
}

// Parses one document into a Trace. Lives for one ReadBytes call.
class TraceParser {
 public:
  TraceParser(Trace& out, std::string_view json, std::string_view source,
              const ReaderLimits& limits, const ArgNameTable& arg_names)
      : out_(out),
        json_(json),
        source_(source),
        limits_(limits),
        arg_names_(arg_names) {}

  // What the text given to Parse is.
  enum class Mode {
    kWhole,      // a whole trace, or its text with the events cut out
    kEventPart,  // "[" events "]" cut out of a trace's event array
  };

  absl::Status Parse(od::parser& parser, size_t capacity,
                     Mode mode = Mode::kWhole) {
    od::document doc;
    const simdjson::padded_string_view padded(json_.data(), json_.size(),
                                              capacity);
    if (auto error = parser.iterate(padded).get(doc))
      return DocumentError(error, nullptr);
    doc_ = &doc;
    od::json_type type;
    if (auto error = doc.type().get(type)) return DocumentError(error, nullptr);
    out_.events.Reserve(reserve_bytes_ / kBytesPerEventEstimate);
    out_.events.arg_begin.push_back(0);
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

  // Events are reserved for this many bytes of JSON (the whole file when
  // parsing a part of it).
  void set_reserve_bytes(size_t bytes) { reserve_bytes_ = bytes; }
  // After a kWhole parse: the offset of the (last) event array's '[' in the
  // text.
  size_t events_offset() const { return events_offset_; }
  // Rows whose pid, tid or flow id is a name (see AppendShift::string_id_rows).
  const std::vector<StringIdRow>& string_id_rows() const {
    return string_id_rows_;
  }

 private:
  // --- error reporting
  // ---------------------------------------------------------------------

  size_t Offset(const char* p) const {
    return p == nullptr ? json_.size() : static_cast<size_t>(p - json_.data());
  }
  size_t Offset(simdjson::simdjson_result<const char*> location) const {
    const char* p = nullptr;
    if (std::move(location).get(p)) return json_.size();
    return Offset(p);
  }

  absl::Status DocumentError(simdjson::error_code error, const char* at) {
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

  std::string EventPrefix(const char* at) const {
    return base::StrCat(source_, ": event #", event_index_, " (byte ",
                        Offset(at), ")");
  }

  absl::Status EventJsonError(simdjson::error_code error, const char* at) {
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

  absl::Status FieldError(std::string_view field, const char* at,
                          std::string_view expected, std::string_view found) {
    return absl::InvalidArgumentError(
        base::StrCat(EventPrefix(at), ": field \"", field, "\": expected ",
                     expected, ", got ", base::QuoteBytes(found)));
  }

  absl::Status FieldError(std::string_view field, const char* at,
                          std::string_view expected, od::value& value) {
    return FieldError(field, at, expected,
                      TrimTrailingSpace(value.raw_json_token()));
  }

  absl::Status CheckLength(std::string_view field, const char* at,
                           std::string_view text) {
    if (text.size() <= limits_.max_string_bytes) return absl::OkStatus();
    return absl::ResourceExhaustedError(base::StrCat(
        EventPrefix(at), ": field \"", field, "\": ", text.size(),
        " bytes, over max_string_bytes ", limits_.max_string_bytes));
  }

  // --- values
  // ------------------------------------------------------------------------------

  // The key text without unescaping (escaped keys never match a known name, as
  // intended).
  static std::string_view KeyView(od::field& field) {
    return RawKeyText(field.key().raw());
  }

  absl::Status ReadString(od::value& value, std::string_view field,
                          const char* at, std::string_view* out) {
    // Most strings have no escapes: take them from the input (stage 1 validated
    // the UTF-8) instead of copying them out through the unescaper.
    const std::string_view raw = TrimTrailingSpace(value.raw_json_token());
    if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"' &&
        std::memchr(raw.data() + 1, '\\', raw.size() - 2) == nullptr) {
      *out = raw.substr(1, raw.size() - 2);
    } else if (value.get_string().get(*out)) {
      return FieldError(field, at, "a string", value);
    }
    return CheckLength(field, at, *out);
  }

  absl::Status ReadMicros(od::value& value, std::string_view field,
                          const char* at, int64_t* ns) {
    const std::string_view raw = TrimTrailingSpace(value.raw_json_token());
    if (!ParseMicrosAsNanos(raw, ns)) {
      return FieldError(
          field, at, "a number of microseconds within int64 nanoseconds", raw);
    }
    return absl::OkStatus();
  }

  // Integers; a JSON double with an integral meaning is truncated, null means
  // absent.
  absl::Status ReadInt(od::value& value, std::string_view field, const char* at,
                       int64_t* out, bool* present) {
    *present = true;
    // Nearly every integer is a plain JSON integer: try that before asking for
    // the type.
    if (!value.get_int64().get(*out)) return absl::OkStatus();
    od::json_type type;
    if (value.type().get(type))
      return FieldError(field, at, "an integer", value);
    if (type == od::json_type::null) {
      *present = false;
      return absl::OkStatus();
    }
    if (type == od::json_type::string) {
      // ROCm traces quote some integers ("bytes": "256", "stream": "0x0").
      std::string_view text;
      if (!value.get_string().get(text) && ParseIntegerText(text, out))
        return absl::OkStatus();
      return FieldError(field, at, "an integer", value);
    }
    if (type == od::json_type::number) {
      if (!value.get_int64().get(*out)) return absl::OkStatus();
      uint64_t big;
      if (!value.get_uint64().get(big)) {
        *out = static_cast<int64_t>(big);  // ids above 2^63 keep their bits
        return absl::OkStatus();
      }
      double d;
      if (!value.get_double().get(d) && d > -9.2e18 && d < 9.2e18) {
        *out = static_cast<int64_t>(d);
        return absl::OkStatus();
      }
    }
    return FieldError(field, at, "an integer", value);
  }

  // pid/tid: numbers, numeric strings, "stream N"; other strings get a stable
  // negative id.
  absl::Status ReadThreadId(od::value& value, std::string_view field,
                            const char* at, int64_t* out,
                            uint8_t* string_id_columns, uint8_t column) {
    // A repeated key replaces the earlier value, and with it whether the id is
    // a name.
    *string_id_columns &= static_cast<uint8_t>(~column);
    if (!value.get_int64().get(*out))
      return absl::OkStatus();  // the usual case
    od::json_type type;
    if (value.type().get(type))
      return FieldError(field, at, "a number or string", value);
    if (type == od::json_type::string) {
      std::string_view text;
      PD_RETURN_IF_ERROR(ReadString(value, field, at, &text));
      std::string_view digits = text;
      if (digits.starts_with(kStreamPrefix))
        digits.remove_prefix(kStreamPrefix.size());
      if (ParseIntegerText(digits, out)) return absl::OkStatus();
      *out = -1 - static_cast<int64_t>(out_.strings.Intern(text).value);
      *string_id_columns |= column;
      return absl::OkStatus();
    }
    bool present;
    PD_RETURN_IF_ERROR(ReadInt(value, field, at, out, &present));
    if (!present) *out = 0;
    return absl::OkStatus();
  }

  // Arrays and objects become compact JSON text; strings their text.
  absl::Status ReadStringOrJson(od::value& value, std::string_view field,
                                const char* at, StringId* out) {
    od::json_type type;
    if (value.type().get(type))
      return FieldError(field, at, "a string or array", value);
    std::string_view raw;
    if (type == od::json_type::array) {
      od::array array;
      if (value.get_array().get(array) || array.raw_json().get(raw)) {
        return FieldError(field, at, "an array", value);
      }
    } else if (type == od::json_type::object) {
      od::object object;
      if (value.get_object().get(object) || object.raw_json().get(raw)) {
        return FieldError(field, at, "an object", value);
      }
    } else if (type == od::json_type::string) {
      std::string_view text;
      PD_RETURN_IF_ERROR(ReadString(value, field, at, &text));
      *out = out_.strings.Intern(text);
      return absl::OkStatus();
    } else {
      raw = TrimTrailingSpace(value.raw_json_token());
    }
    // The same spelling repeats on many events: checked, compacted and interned
    // once (a text that fails a check ends the read, so whatever is remembered
    // has passed them).
    if (const StringId* recent = recent_json_.Find(raw)) {
      *out = *recent;
      return absl::OkStatus();
    }
    if (auto it = id_of_raw_json_.find(raw); it != id_of_raw_json_.end()) {
      recent_json_.Remember(raw, it->second);
      *out = it->second;
      return absl::OkStatus();
    }
    PD_RETURN_IF_ERROR(CheckLength(field, at, raw));
    if (type == od::json_type::array || type == od::json_type::object) {
      // Taken whole as text, so simdjson never descended into it: check its
      // depth here.
      if (const uint32_t depth = JsonNestingDepth(raw);
          depth > limits_.max_depth) {
        return absl::ResourceExhaustedError(base::StrCat(
            EventPrefix(at), ": field \"", field, "\": JSON nesting ", depth,
            " deep, over max_depth ", limits_.max_depth));
      }
    }
    CompactJson(raw, scratch_);
    const StringId id = out_.strings.Intern(scratch_);
    id_of_raw_json_.emplace(raw, id);
    recent_json_.Remember(raw, id);
    *out = id;
    return absl::OkStatus();
  }

  // --- events
  // ------------------------------------------------------------------------------

  absl::Status ParseTopObject(od::document& doc) {
    od::object top;
    if (auto error = doc.get_object().get(top))
      return DocumentError(error, nullptr);
    bool has_events = false;
    for (auto field_result : top) {
      od::field field;
      if (auto error = std::move(field_result).get(field))
        return DocumentError(error, nullptr);
      const std::string_view key = KeyView(field);
      od::value value = field.value();
      if (key == "traceEvents") {
        events_offset_ = Offset(value.raw_json_token().data());
        od::array events;
        if (value.get_array().get(events)) {
          return absl::InvalidArgumentError(
              base::StrCat(source_, ": byte ", Offset(field.key().raw()),
                           ": \"traceEvents\" is not an array"));
        }
        has_events = true;
        PD_RETURN_IF_ERROR(ParseEvents(events));
      } else if (key == "deviceProperties") {
        PD_RETURN_IF_ERROR(ParseDevices(value, field.key().raw()));
      } else if (key == "distributedInfo") {
        PD_RETURN_IF_ERROR(ParseDistributedInfo(value, field.key().raw()));
      } else if (key == "baseTimeNanoseconds") {
        bool present;
        PD_RETURN_IF_ERROR(TopInt(value, key, field.key().raw(),
                                  &out_.metadata.base_time_ns, &present));
      } else if (key == "traceName") {
        std::string_view name;
        if (!value.get_string().get(name))
          out_.metadata.trace_name = std::string(name);
      }
    }
    if (!has_events) {
      return NotATrace(base::StrCat(
          source_, ": no \"traceEvents\" array in the top-level object"));
    }
    return absl::OkStatus();
  }

  absl::Status TopInt(od::value& value, std::string_view field, const char* at,
                      int64_t* out, bool* present) {
    // ReadInt's message speaks of an event; top-level fields get their own.
    if (ReadInt(value, field, at, out, present).ok()) return absl::OkStatus();
    return absl::InvalidArgumentError(
        base::StrCat(source_, ": byte ", Offset(at), ": field \"", field,
                     "\": expected an integer"));
  }

  absl::Status ParseDevices(od::value& value, const char* at) {
    od::array devices;
    if (value.get_array().get(devices)) {
      return absl::InvalidArgumentError(
          base::StrCat(source_, ": byte ", Offset(at),
                       ": \"deviceProperties\" is not an array"));
    }
    for (auto device_result : devices) {
      od::object device;
      if (device_result.get_object().get(device)) {
        return absl::InvalidArgumentError(
            base::StrCat(source_, ": byte ", Offset(at),
                         ": \"deviceProperties\" entry is not an object"));
      }
      DeviceInfo info;
      for (auto field_result : device) {
        od::field field;
        if (auto error = std::move(field_result).get(field))
          return DocumentError(error, nullptr);
        const std::string_view key = KeyView(field);
        od::value v = field.value();
        const char* where = field.key().raw();
        int64_t number = 0;
        bool present = false;
        if (key == "name") {
          std::string_view name;
          if (v.get_string().get(name)) {
            return absl::InvalidArgumentError(
                base::StrCat(source_, ": byte ", Offset(where),
                             ": deviceProperties \"name\" is not a string"));
          }
          info.name = std::string(name);
        } else if (key == "id") {
          PD_RETURN_IF_ERROR(TopInt(v, key, where, &info.id, &present));
        } else if (key == "totalGlobalMem") {
          PD_RETURN_IF_ERROR(
              TopInt(v, key, where, &info.total_global_mem_bytes, &present));
        } else if (key == "numSms") {
          PD_RETURN_IF_ERROR(TopInt(v, key, where, &number, &present));
          info.num_sms = static_cast<int32_t>(number);
        } else if (key == "computeMajor") {
          PD_RETURN_IF_ERROR(TopInt(v, key, where, &number, &present));
          info.compute_major = static_cast<int32_t>(number);
        } else if (key == "computeMinor") {
          PD_RETURN_IF_ERROR(TopInt(v, key, where, &number, &present));
          info.compute_minor = static_cast<int32_t>(number);
        } else if (key == "maxThreadsPerMultiprocessor") {
          PD_RETURN_IF_ERROR(TopInt(v, key, where, &number, &present));
          info.max_threads_per_multiprocessor = static_cast<int32_t>(number);
        } else if (key == "warpSize") {
          PD_RETURN_IF_ERROR(TopInt(v, key, where, &number, &present));
          info.warp_size = static_cast<int32_t>(number);
        }
      }
      out_.metadata.devices.push_back(std::move(info));
    }
    return absl::OkStatus();
  }

  absl::Status ParseDistributedInfo(od::value& value, const char* at) {
    od::object info;
    if (value.get_object().get(info)) {
      return absl::InvalidArgumentError(
          base::StrCat(source_, ": byte ", Offset(at),
                       ": \"distributedInfo\" is not an object"));
    }
    out_.metadata.has_distributed_info = true;
    for (auto field_result : info) {
      od::field field;
      if (auto error = std::move(field_result).get(field))
        return DocumentError(error, nullptr);
      const std::string_view key = KeyView(field);
      od::value v = field.value();
      const char* where = field.key().raw();
      int64_t number = 0;
      bool present = false;
      if (key == "backend") {
        std::string_view backend;
        if (!v.get_string().get(backend))
          out_.metadata.backend = std::string(backend);
      } else if (key == "rank") {
        PD_RETURN_IF_ERROR(TopInt(v, key, where, &number, &present));
        out_.metadata.rank = static_cast<int32_t>(number);
      } else if (key == "world_size") {
        PD_RETURN_IF_ERROR(TopInt(v, key, where, &number, &present));
        out_.metadata.world_size = static_cast<int32_t>(number);
      }
    }
    return absl::OkStatus();
  }

  absl::Status ParseEvents(od::array& events) {
    for (auto event_result : events) {
      od::value event;
      if (auto error = std::move(event_result).get(event))
        return EventJsonError(error, nullptr);
      if (out_.events.size() >= limits_.max_events) {
        return absl::ResourceExhaustedError(base::StrCat(
            source_, ": more than max_events ", limits_.max_events, " events"));
      }
      PD_RETURN_IF_ERROR(ParseEvent(event));
      ++event_index_;
    }
    return absl::OkStatus();
  }

  absl::Status ParseEvent(od::value& event_value) {
    const char* event_start = event_value.raw_json_token().data();
    od::object object;
    if (event_value.get_object().get(object)) {
      return FieldError("", event_start, "an event object", event_value);
    }
    PendingEvent p;
    const uint32_t args_before = static_cast<uint32_t>(out_.args.size());
    for (auto field_result : object) {
      od::field field;
      if (auto error = std::move(field_result).get(field)) {
        return EventJsonError(error, event_start);
      }
      const char* raw_key = field.key().raw();
      const EventField known = ClassifyEventField(raw_key);
      const std::string_view key = EventFieldName(known);
      const char* at = raw_key - 1;
      od::value value = field.value();
      switch (known) {
        case EventField::kPh:
          PD_RETURN_IF_ERROR(ReadString(value, key, at, &p.ph));
          break;
        case EventField::kCat:
          PD_RETURN_IF_ERROR(ReadString(value, key, at, &p.category));
          p.has_category = true;
          break;
        case EventField::kName:
          PD_RETURN_IF_ERROR(ReadString(value, key, at, &p.name));
          break;
        case EventField::kPid:
          PD_RETURN_IF_ERROR(ReadThreadId(
              value, key, at, &p.pid, &p.string_id_columns, StringIdRow::kPid));
          break;
        case EventField::kTid:
          PD_RETURN_IF_ERROR(ReadThreadId(
              value, key, at, &p.tid, &p.string_id_columns, StringIdRow::kTid));
          break;
        case EventField::kTs:
          PD_RETURN_IF_ERROR(ReadMicros(value, key, at, &p.ts_ns));
          p.has_ts = true;
          break;
        case EventField::kDur:
          PD_RETURN_IF_ERROR(ReadMicros(value, key, at, &p.dur_ns));
          p.has_dur = true;
          break;
        case EventField::kId:
          PD_RETURN_IF_ERROR(ReadThreadId(value, key, at, &p.flow_id,
                                          &p.string_id_columns,
                                          StringIdRow::kFlowId));
          break;
        case EventField::kBp: {
          std::string_view bp;
          PD_RETURN_IF_ERROR(ReadString(value, key, at, &bp));
          p.binding_enclosing = bp == "e";
          break;
        }
        case EventField::kArgs:
          PD_RETURN_IF_ERROR(ParseArgs(value, at, p));
          break;
        case EventField::kUnknown:
          break;  // skipped by the iterator
      }
    }
    return Commit(p, event_start, args_before);
  }

  absl::Status ParseArgs(od::value& value, const char* args_at,
                         PendingEvent& p) {
    od::json_type type;
    if (value.type().get(type))
      return FieldError("args", args_at, "an object", value);
    if (type == od::json_type::null) return absl::OkStatus();
    od::object args;
    if (value.get_object().get(args))
      return FieldError("args", args_at, "an object", value);
    for (auto field_result : args) {
      od::field field;
      if (auto error = std::move(field_result).get(field))
        return EventJsonError(error, args_at);
      const char* raw_key = field.key().raw();
      const ArgName* name = arg_names_.Find(raw_key);
      if (name == nullptr) continue;
      const std::string_view key = name->json;
      const char* at = raw_key - 1;
      od::value v = field.value();
      bool present = true;
      if (int64_t* column = IntegerColumn(name->slot, p)) {
        PD_RETURN_IF_ERROR(ReadInt(v, key, at, column, &present));
        continue;
      }
      switch (name->slot) {
        case ArgSlot::kInputShapes:
          PD_RETURN_IF_ERROR(ReadStringOrJson(v, key, at, &p.input_shapes));
          break;
        case ArgSlot::kTyped:
          PD_RETURN_IF_ERROR(ReadTypedArg(v, key, at, name->key));
          break;
        default:
          break;  // integer columns are handled above
      }
    }
    return absl::OkStatus();
  }

  absl::Status ReadTypedArg(od::value& value, std::string_view field,
                            const char* at, ArgKey key) {
    int64_t int_value = 0;
    double double_value = 0;
    StringId string_value;
    switch (ArgTypeOf(key)) {
      case ArgType::kInt: {
        bool present;
        PD_RETURN_IF_ERROR(ReadInt(value, field, at, &int_value, &present));
        if (!present) return absl::OkStatus();
        break;
      }
      case ArgType::kDouble: {
        od::json_type type;
        if (value.type().get(type))
          return FieldError(field, at, "a number", value);
        if (type == od::json_type::null) return absl::OkStatus();
        if (value.get_double().get(double_value))
          return FieldError(field, at, "a number", value);
        break;
      }
      case ArgType::kString:
        PD_RETURN_IF_ERROR(ReadStringOrJson(value, field, at, &string_value));
        break;
    }
    AppendArg(key, int_value, double_value, string_value);
    return absl::OkStatus();
  }

  void AppendArg(ArgKey key, int64_t int_value, double double_value,
                 StringId string_value) {
    out_.args.key.push_back(key);
    out_.args.int_value.push_back(int_value);
    out_.args.double_value.push_back(double_value);
    out_.args.string_value.push_back(string_value);
  }

  void DropArgsFrom(uint32_t begin) {
    out_.args.key.resize(begin);
    out_.args.int_value.resize(begin);
    out_.args.double_value.resize(begin);
    out_.args.string_value.resize(begin);
  }

  EventKind KindOf(const PendingEvent& p, EventPhase phase, StringId category) {
    switch (phase) {
      case EventPhase::kMetadata:
        return EventKind::kMetadata;
      case EventPhase::kCounter:
        return EventKind::kCounter;
      case EventPhase::kFlowStart:
      case EventPhase::kFlowStep:
      case EventPhase::kFlowEnd:
        return EventKind::kFlow;
      case EventPhase::kInstant:
        return KindOfInstantEvent(p.name);
      default:
        break;
    }
    if (!p.has_category) return KindOfUncategorizedEvent(p.name);
    if (category.value >= kind_of_category_.size()) {
      kind_of_category_.resize(category.value + 1, EventKind::kUnspecified);
    }
    EventKind& cached = kind_of_category_[category.value];
    if (cached == EventKind::kUnspecified) cached = KindOfCategory(p.category);
    if (cached == EventKind::kOther) ++out_.counters.unknown_category_events;
    return KindOfCategorizedEvent(cached, p.name);
  }

  StringId InternName(std::string_view name) {
    if (const StringId* recent = recent_names_.Find(name)) return *recent;
    const StringId id = out_.strings.Intern(name);
    recent_names_.Remember(out_.strings.Get(id), id);
    return id;
  }

  // Runs of events share a category; remembering the last one skips most hash
  // lookups.
  StringId InternCategory(std::string_view category) {
    if (category != last_category_text_ || last_category_.value == 0) {
      last_category_ = out_.strings.Intern(category);
      last_category_text_ = out_.strings.Get(last_category_);
    }
    return last_category_;
  }

  absl::Status Commit(const PendingEvent& p, const char* at,
                      uint32_t args_before) {
    if (p.ph.empty()) {
      return absl::InvalidArgumentError(
          base::StrCat(EventPrefix(at), ": missing field \"ph\""));
    }
    const std::optional<EventPhase> known_phase = PhaseOfLetter(p.ph[0]);
    if (!known_phase.has_value()) {
      // Begin/end pairs, async and object events: not written by PyTorch;
      // counted, not kept.
      ++out_.counters.unsupported_phase_events;
      DropArgsFrom(args_before);
      return absl::OkStatus();
    }
    const EventPhase phase = *known_phase;
    if (!p.has_ts && phase != EventPhase::kMetadata) {
      return absl::InvalidArgumentError(
          base::StrCat(EventPrefix(at), ": missing field \"ts\""));
    }
    int64_t duration_ns = p.dur_ns;
    if (phase == EventPhase::kComplete) {
      if (!p.has_dur) {
        return absl::InvalidArgumentError(base::StrCat(
            EventPrefix(at),
            ": missing field \"dur\" on a complete (\"X\") event"));
      }
      if (duration_ns < 0) {
        return absl::InvalidArgumentError(base::StrCat(
            EventPrefix(at),
            ": field \"dur\": expected a non-negative duration, got ",
            duration_ns, " ns"));
      }
    } else {
      duration_ns = 0;
    }
    if (p.binding_enclosing)
      AppendArg(ArgKey::kFlowBindingEnclosing, 1, 0, StringId{});
    const StringId category =
        p.has_category ? InternCategory(p.category) : StringId{};
    EventTable& t = out_.events;
    t.kind.push_back(KindOf(p, phase, category));
    t.phase.push_back(phase);
    t.name.push_back(InternName(p.name));
    t.category.push_back(category);
    t.start_ns.push_back(p.ts_ns);
    t.duration_ns.push_back(duration_ns);
    t.pid.push_back(p.pid);
    t.tid.push_back(p.tid);
    t.correlation.push_back(p.correlation);
    t.external_id.push_back(p.external_id);
    t.sequence_number.push_back(p.sequence_number);
    t.forward_thread_id.push_back(p.forward_thread_id);
    t.python_id.push_back(p.python_id);
    t.python_parent_id.push_back(p.python_parent_id);
    t.flow_id.push_back(p.flow_id);
    t.input_shapes.push_back(p.input_shapes);
    t.arg_begin.push_back(static_cast<uint32_t>(out_.args.size()));
    if (p.string_id_columns != 0) {
      string_id_rows_.push_back(
          {static_cast<uint32_t>(t.size() - 1), p.string_id_columns});
    }
    return absl::OkStatus();
  }

  Trace& out_;
  std::string_view json_;
  std::string_view source_;
  const ReaderLimits& limits_;
  const ArgNameTable& arg_names_;
  od::document* doc_ = nullptr;
  size_t reserve_bytes_ = json_.size();
  size_t events_offset_ = 0;
  size_t event_index_ = 0;
  std::string scratch_;
  absl::flat_hash_map<std::string_view, StringId, TextHash>
      id_of_raw_json_;          // views into json_
  RecentStrings recent_json_;   // in front of id_of_raw_json_
  RecentStrings recent_names_;  // in front of out_.strings; views into the pool
  std::string_view last_category_text_;
  StringId last_category_;
  std::vector<EventKind>
      kind_of_category_;  // by category StringId; computed on first use
  std::vector<StringIdRow> string_id_rows_;
};

// Sizes `parser` for `bytes` of JSON at `limits`' depth.
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

// The single pass, as EventPartReader runs it on the parts of one file.
class KinetoPartParser final : public PartParser {
 public:
  // `whole_parser` parses the text around the event array.
  KinetoPartParser(std::string_view source, const ReaderLimits& limits,
                   const ArgNameTable& arg_names, od::parser& whole_parser)
      : source_(source),
        limits_(limits),
        arg_names_(arg_names),
        whole_parser_(whole_parser) {}

  absl::Status Prepare(size_t text_bytes, size_t reserve_bytes,
                       od::parser& parser, Trace& out) const override {
    out.events.Reserve(reserve_bytes / kBytesPerEventEstimate);
    return AllocateParser(parser, text_bytes, limits_, source_);
  }

  absl::Status ParseEvents(
      std::string_view text, size_t capacity, od::parser& parser, Trace& out,
      std::vector<StringIdRow>& string_id_rows) const override {
    TraceParser part(out, text, source_, limits_, arg_names_);
    part.set_reserve_bytes(0);  // reserved by Prepare
    PD_RETURN_IF_ERROR(
        part.Parse(parser, capacity, TraceParser::Mode::kEventPart));
    string_id_rows = part.string_id_rows();
    return absl::OkStatus();
  }

  absl::Status ParseWhole(std::string_view text, size_t capacity, Trace& out,
                          size_t& events_offset) override {
    PD_RETURN_IF_ERROR(
        AllocateParser(whole_parser_, text.size(), limits_, source_));
    TraceParser fields(out, text, source_, limits_, arg_names_);
    PD_RETURN_IF_ERROR(fields.Parse(whole_parser_, capacity));
    events_offset = fields.events_offset();
    return absl::OkStatus();
  }

 private:
  std::string_view source_;
  const ReaderLimits& limits_;
  const ArgNameTable& arg_names_;
  od::parser& whole_parser_;
};

}  // namespace

class KinetoReader::Impl {
 public:
  Impl(ReaderLimits limits, ReadParallelism parallelism)
      : limits_(limits), parallelism_(parallelism) {}

  absl::StatusOr<Trace> ReadFile(const std::string& path) {
    PD_RETURN_IF_ERROR(buffer_.Load(path, limits_));
    return Parse(path);
  }

  absl::StatusOr<Trace> ReadBytes(std::string_view bytes,
                                  std::string_view source) {
    PD_RETURN_IF_ERROR(buffer_.LoadBytes(bytes, source, limits_));
    return Parse(source);
  }

  size_t last_read_parts() const { return last_read_parts_; }

 private:
  absl::StatusOr<Trace> Parse(std::string_view source) {
    const std::string_view json = buffer_.json();
    last_read_parts_ = 1;
    if (const size_t parts = EventPartCount(json.size(), parallelism_);
        parts > 1) {
      KinetoPartParser part_parser(source, limits_, arg_names_, parser_);
      if (std::optional<EventPartReader::Result> read = part_reader_.Read(
              buffer_, source, parts, limits_.max_events, part_parser)) {
        last_read_parts_ = read->parts;
        return std::move(read->trace);
      }
    }
    // One pass; also what gives a file that failed in parts its exact error.
    PD_RETURN_IF_ERROR(AllocateParser(parser_, json.size(), limits_, source));
    Trace trace;
    trace.metadata.source = std::string(source);
    TraceParser parser(trace, json, source, limits_, arg_names_);
    PD_RETURN_IF_ERROR(parser.Parse(parser_, buffer_.capacity()));
    return trace;
  }

  ReaderLimits limits_;
  ReadParallelism parallelism_;
  TraceFileBuffer buffer_;
  od::parser parser_;
  ArgNameTable arg_names_;
  // Keeps the parts' parsers and columns between files; a reader that read a
  // large file in parts holds that memory (about 6 bytes per byte of JSON)
  // until it is destroyed.
  EventPartReader part_reader_;
  size_t last_read_parts_ = 1;
};

KinetoReader::KinetoReader(ReaderLimits limits, ReadParallelism parallelism)
    : impl_(std::make_unique<Impl>(limits, parallelism)) {}
KinetoReader::~KinetoReader() = default;

absl::StatusOr<Trace> KinetoReader::ReadFile(const std::string& path) {
  return impl_->ReadFile(path);
}

size_t KinetoReader::last_read_parts() const {
  return impl_->last_read_parts();
}

absl::StatusOr<Trace> KinetoReader::ReadBytes(std::string_view bytes,
                                              std::string_view source) {
  return impl_->ReadBytes(bytes, source);
}

absl::StatusOr<Trace> ReadKinetoTrace(std::string_view bytes,
                                      std::string_view source) {
  KinetoReader reader;
  return reader.ReadBytes(bytes, source);
}

bool IsNotATrace(const absl::Status& status) {
  return status.GetPayload(base::ToAbsl(kNotATracePayload)).has_value();
}

}  // namespace profdiff::trace
