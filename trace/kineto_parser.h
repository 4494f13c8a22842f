// The single pass over one Kineto/Chrome trace document (or a part of its
// event array cut out by event_part_reader.h) into a Trace: every field of
// every event visited once, with errors that locate it. Internal to the reader
// (kineto_reader.cc drives it). Its work is in three files, as Perfetto splits
// its JSON tokenizer, parser and utilities:
//   kineto_parser.cc     the document: its kind, the pass, errors naming a byte
//   kineto_top_level.cc  the top-level object's fields beside the events
//                        (deviceProperties, distributedInfo, base time)
//   kineto_events.cc     each event: its fields' values read and converted,
//                        then the event committed to the table (the hot loop,
//                        kept in one file so its helpers inline)
// Its lexing (json_text.h), vocabulary (kineto_vocabulary.h) and multi-threaded
// driver (event_part_reader.h) have their own files.
#ifndef PROFDIFF_TRACE_KINETO_PARSER_H_
#define PROFDIFF_TRACE_KINETO_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/status/status.h>
#include <simdjson.h>

#include "base/str_cat.h"
#include "trace/json_text.h"
#include "trace/kineto_reader.h"
#include "trace/kineto_vocabulary.h"
#include "trace/recent_strings.h"
#include "trace/trace_append.h"

namespace profdiff::trace::kineto {

namespace od = simdjson::ondemand;

// The payload IsNotATrace looks for.
inline constexpr std::string_view kNotATracePayload =
    "type.profdiff.dev/not-a-trace";

// InvalidArgument `message`, marked as a file that is no trace at all.
absl::Status NotATrace(std::string_view message);

// Sizes `parser` for `bytes` of JSON at `limits`' depth (kept when it is
// already large enough). ResourceExhausted naming `source` when it cannot.
absl::Status AllocateParser(od::parser& parser, size_t bytes,
                            const ReaderLimits& limits,
                            std::string_view source);

// The top-level fields of a trace read in parts, from `outside`: its text up
// to and including the event array's '[' and from the array's ']' on (padded
// here for simdjson). nullopt when that is not exactly what one pass over the
// whole text takes from it: an event or string in it, or the array found
// elsewhere than at `array_begin`.
std::optional<TraceMetadata> ReadTextAroundEvents(std::string& outside,
                                                  size_t array_begin,
                                                  std::string_view source,
                                                  const ReaderLimits& limits,
                                                  const ArgNameTable& arg_names,
                                                  od::parser& parser);

// Fields of the event being parsed, committed to the table once the object is
// done.
struct PendingEvent {
  std::string_view ph;
  std::string_view category;
  bool has_category = false;
  std::string_view name;
  bool has_name = false;
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
                     Mode mode = Mode::kWhole);

  // Parses the next kEventPart text of the same trace into the same table,
  // after Parse(..., kEventPart) parsed the first: the columns, string pool and
  // caches carry on, as if the texts were one array.
  absl::Status ParseNextPart(od::parser& parser, std::string_view text,
                             size_t capacity) {
    json_ = text;
    doc_ = nullptr;
    return Parse(parser, capacity, Mode::kEventPart);
  }

  // Offsets in the next kEventPart text where an event must start, for a part
  // whose plain frames were taken out (plain_frame_filter.h); nullptr for none.
  // The part fails unless each is the start of one of its events.
  void set_seams(const std::vector<uint32_t>* seams) {
    seams_ = seams;
    next_seam_ = 0;
  }

  // After a kWhole parse: the offset of the (last) event array's '[' in the
  // text.
  size_t events_offset() const { return events_offset_; }
  // Rows whose pid, tid or flow id is a name (see AppendShift::string_id_rows).
  const std::vector<StringIdRow>& string_id_rows() const {
    return string_id_rows_;
  }

 private:
  // --- the document and its errors (kineto_parser.cc)
  size_t Offset(const char* p) const;
  size_t Offset(simdjson::simdjson_result<const char*> location) const;
  absl::Status DocumentError(simdjson::error_code error, const char* at);
  std::string EventPrefix(const char* at) const;
  absl::Status EventJsonError(simdjson::error_code error, const char* at);
  absl::Status FieldError(std::string_view field, const char* at,
                          std::string_view expected, std::string_view found);
  absl::Status FieldError(std::string_view field, const char* at,
                          std::string_view expected, od::value& value);

  absl::Status CheckLength(std::string_view field, const char* at,
                           std::string_view text) {
    if (text.size() <= limits_.max_string_bytes) return absl::OkStatus();
    return absl::ResourceExhaustedError(base::StrCat(
        EventPrefix(at), ": field \"", field, "\": ", text.size(),
        " bytes, over max_string_bytes ", limits_.max_string_bytes));
  }

  // The key text without unescaping (escaped keys never match a known name, as
  // intended).
  static std::string_view KeyView(od::field& field) {
    return RawKeyText(field.key().raw());
  }

  // --- the top-level object (kineto_top_level.cc)
  // Calls read(key, value, key_at) for each field of `object` (key_at: where
  // its key starts, for errors); a malformed field is the document's error,
  // and an error of `read` ends the walk with it.
  template <typename Read>
  absl::Status ForEachField(od::object& object, Read read);
  absl::Status ParseTopObject(od::document& doc);
  absl::Status TopInt(od::value& value, std::string_view field, const char* at,
                      int64_t* out, bool* present);
  // TopInt into a 32-bit field (truncated as before); null sets 0.
  absl::Status TopInt32(od::value& value, std::string_view field,
                        const char* at, int32_t* out);
  absl::Status ParseDevices(od::value& value, const char* at);
  absl::Status ParseDistributedInfo(od::value& value, const char* at);

  // --- values and events (kineto_events.cc)
  absl::Status ReadString(od::value& value, std::string_view field,
                          const char* at, std::string_view* out);
  absl::Status ReadMicros(od::value& value, std::string_view field,
                          const char* at, int64_t* ns);
  absl::Status ReadInt(od::value& value, std::string_view field, const char* at,
                       int64_t* out, bool* present);
  absl::Status ReadThreadId(od::value& value, std::string_view field,
                            const char* at, int64_t* out,
                            uint8_t* string_id_columns, uint8_t column);
  absl::Status ReadStringOrJson(od::value& value, std::string_view field,
                                const char* at, StringId* out);
  absl::Status ParseEvents(od::array& events);
  absl::Status ParseEvent(od::value& event_value);
  // Consumes the seams up to an event starting at `event_start`; an error
  // when one of them is not at an event's start (set_seams).
  absl::Status CheckSeams(const char* event_start);
  absl::Status ParseArgs(od::value& value, const char* args_at,
                         PendingEvent& p);
  absl::Status ReadTypedArg(od::value& value, std::string_view field,
                            const char* at, ArgKey key);
  void AppendArg(ArgKey key, int64_t int_value, double double_value,
                 StringId string_value);
  void DropArgsFrom(uint32_t begin);
  // Ends a frame that is not kept: any arguments it appended are dropped, its
  // times are added to the span's extent of frames left out.
  absl::Status LeaveOutFrame(uint32_t args_before, int64_t start_ns,
                             int64_t end_ns) {
    DropArgsFrom(args_before);
    ++out_.counters.python_frames_left_out;
    out_.left_out_frames.back().Add(start_ns, end_ns);
    return absl::OkStatus();
  }
  EventKind KindOf(const PendingEvent& p, EventPhase phase, StringId category);
  // Whether `p` is a plain Python frame the reader is to leave out, as far as
  // its fields read so far say (ReaderLimits::keep_python_frames).
  bool IsFrameToLeaveOut(const PendingEvent& p) const {
    return !limits_.keep_python_frames && p.has_name && p.has_category &&
           p.ph == "X" && p.category == "python_function" &&
           !p.name.starts_with(kModulePrefix);
  }
  StringId InternName(std::string_view name);
  StringId InternCategory(std::string_view category);
  absl::Status Commit(const PendingEvent& p, const char* at,
                      uint32_t args_before);

  Trace& out_;
  std::string_view json_;
  std::string_view source_;
  const ReaderLimits& limits_;
  const ArgNameTable& arg_names_;
  od::document* doc_ = nullptr;
  size_t events_offset_ = 0;
  size_t event_index_ = 0;
  const std::vector<uint32_t>* seams_ = nullptr;
  size_t next_seam_ = 0;  // the first seam no event has started at yet
  bool started_ = false;  // the table's args are begun
  std::string scratch_;
  // Each raw JSON text an argument had, and its (compacted) string: the keys
  // are copies, as a part of a streamed read is overwritten by the next.
  std::deque<std::string> raw_json_keys_;
  absl::flat_hash_map<std::string_view, StringId, TextHash> id_of_raw_json_;
  RecentStrings recent_json_;   // in front of id_of_raw_json_
  RecentStrings recent_names_;  // in front of out_.strings; views into the pool
  std::string_view last_category_text_;
  StringId last_category_;
  std::vector<EventKind>
      kind_of_category_;  // by category StringId; computed on first use
  std::vector<StringIdRow> string_id_rows_;
};

}  // namespace profdiff::trace::kineto

#endif  // PROFDIFF_TRACE_KINETO_PARSER_H_
