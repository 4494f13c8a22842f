// The hot loop of the reader: each event's fields read, converted and
// checked, then the event committed to the table's columns. One file, so the
// value readers inline into ParseEvent.
#include <cstring>
#include <optional>
#include <utility>

#include "base/status_macros.h"
#include "trace/decimal_time.h"
#include "trace/kineto_parser.h"

namespace profdiff::trace::kineto {
namespace {

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

}  // namespace

absl::Status TraceParser::ReadString(od::value& value, std::string_view field,
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

absl::Status TraceParser::ReadMicros(od::value& value, std::string_view field,
                                     const char* at, int64_t* ns) {
  const std::string_view raw = TrimTrailingSpace(value.raw_json_token());
  if (!ParseMicrosAsNanos(raw, ns)) {
    return FieldError(field, at,
                      "a number of microseconds within int64 nanoseconds", raw);
  }
  return absl::OkStatus();
}

// Integers; a JSON double with an integral meaning is truncated, null means
// absent.
absl::Status TraceParser::ReadInt(od::value& value, std::string_view field,
                                  const char* at, int64_t* out, bool* present) {
  *present = true;
  // Nearly every integer is a plain JSON integer: try that before asking for
  // the type.
  if (!value.get_int64().get(*out)) return absl::OkStatus();
  od::json_type type;
  if (value.type().get(type)) return FieldError(field, at, "an integer", value);
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
absl::Status TraceParser::ReadThreadId(od::value& value, std::string_view field,
                                       const char* at, int64_t* out,
                                       uint8_t* string_id_columns,
                                       uint8_t column) {
  // A repeated key replaces the earlier value, and with it whether the id is
  // a name.
  *string_id_columns &= static_cast<uint8_t>(~column);
  if (!value.get_int64().get(*out)) return absl::OkStatus();  // the usual case
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
absl::Status TraceParser::ReadStringOrJson(od::value& value,
                                           std::string_view field,
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
    recent_json_.Remember(it->first, it->second);
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
  // Kept in a copy: a streamed read overwrites the text it came from.
  const std::string_view key = raw_json_keys_.emplace_back(raw);
  id_of_raw_json_.emplace(key, id);
  recent_json_.Remember(key, id);
  *out = id;
  return absl::OkStatus();
}

absl::Status TraceParser::ParseEvents(od::array& events) {
  for (auto event_result : events) {
    od::value event;
    // NOLINTNEXTLINE(performance-move-const-arg): get() is &&-qualified.
    if (auto error = std::move(event_result).get(event))
      return EventJsonError(error, nullptr);
    if (out_.events.size() >= limits_.max_events) {
      return absl::ResourceExhaustedError(base::StrCat(
          source_, ": more than max_events ", limits_.max_events, " events"));
    }
    PD_RETURN_IF_ERROR(ParseEvent(event));
    ++event_index_;
  }
  // A seam past the last event's start lies inside it.
  if (seams_ != nullptr) return CheckSeams(json_.data() + json_.size());
  return absl::OkStatus();
}

absl::Status TraceParser::CheckSeams(const char* event_start) {
  const size_t offset = Offset(event_start);
  for (; next_seam_ < seams_->size() && (*seams_)[next_seam_] <= offset;
       ++next_seam_) {
    if ((*seams_)[next_seam_] != offset) {
      return absl::InternalError(
          base::StrCat(source_, ": byte ", (*seams_)[next_seam_],
                       " of a part: Python frames taken out before it were "
                       "not between two events"));
    }
  }
  return absl::OkStatus();
}

absl::Status TraceParser::ParseEvent(od::value& event_value) {
  const char* event_start = event_value.raw_json_token().data();
  if (seams_ != nullptr) PD_RETURN_IF_ERROR(CheckSeams(event_start));
  od::object object;
  if (event_value.get_object().get(object)) {
    return FieldError("", event_start, "an event object", event_value);
  }
  PendingEvent p;
  const uint32_t args_before = static_cast<uint32_t>(out_.args.size());
  // A frame to leave out, known by its category and name: of the fields after
  // them only its times are read (Kineto writes "ph", "cat", "name" first).
  bool frame = false;
  for (auto field_result : object) {
    od::field field;
    if (auto error = std::move(field_result).get(field)) {
      return EventJsonError(error, event_start);
    }
    const char* raw_key = field.key().raw();
    const EventField known = ClassifyEventField(raw_key);
    if (frame && known != EventField::kTs && known != EventField::kDur)
      continue;  // skipped by the iterator, unread
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
        frame = IsFrameToLeaveOut(p);
        break;
      case EventField::kName:
        PD_RETURN_IF_ERROR(ReadString(value, key, at, &p.name));
        p.has_name = true;
        frame = IsFrameToLeaveOut(p);
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
    if (frame && p.has_ts && p.has_dur) break;  // its arguments unread
  }
  return Commit(p, event_start, args_before);
}

absl::Status TraceParser::ParseArgs(od::value& value, const char* args_at,
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

absl::Status TraceParser::ReadTypedArg(od::value& value, std::string_view field,
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

void TraceParser::AppendArg(ArgKey key, int64_t int_value, double double_value,
                            StringId string_value) {
  out_.args.key.push_back(key);
  out_.args.int_value.push_back(int_value);
  out_.args.double_value.push_back(double_value);
  out_.args.string_value.push_back(string_value);
}

void TraceParser::DropArgsFrom(uint32_t begin) {
  // Most events dropped appended none (a frame's arguments are left unread).
  if (out_.args.size() == begin) return;
  out_.args.key.resize(begin);
  out_.args.int_value.resize(begin);
  out_.args.double_value.resize(begin);
  out_.args.string_value.resize(begin);
}

EventKind TraceParser::KindOf(const PendingEvent& p, EventPhase phase,
                              StringId category) {
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

StringId TraceParser::InternName(std::string_view name) {
  if (const StringId* recent = recent_names_.Find(name)) return *recent;
  const StringId id = out_.strings.Intern(name);
  recent_names_.Remember(out_.strings.Get(id), id);
  return id;
}

// Runs of events share a category; remembering the last one skips most hash
// lookups.
StringId TraceParser::InternCategory(std::string_view category) {
  if (category != last_category_text_ || last_category_.value == 0) {
    last_category_ = out_.strings.Intern(category);
    last_category_text_ = out_.strings.Get(last_category_);
  }
  return last_category_;
}

absl::Status TraceParser::Commit(const PendingEvent& p, const char* at,
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
      return absl::InvalidArgumentError(
          base::StrCat(EventPrefix(at),
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
  // A frame: its times kept, its other fields read and checked only when
  // they came before its name.
  if (IsFrameToLeaveOut(p))
    return LeaveOutFrame(args_before, p.ts_ns,
                         FrameExtent::SaturatingAdd(p.ts_ns, duration_ns));
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

}  // namespace profdiff::trace::kineto
