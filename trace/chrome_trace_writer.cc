#include "trace/chrome_trace_writer.h"

#include <charconv>

#include "base/str_cat.h"
#include "trace/decimal_time.h"

namespace profdiff::trace {
namespace {

char PhaseLetter(EventPhase phase) {
  switch (phase) {
    case EventPhase::kComplete:
      return 'X';
    case EventPhase::kInstant:
      return 'i';
    case EventPhase::kFlowStart:
      return 's';
    case EventPhase::kFlowStep:
      return 't';
    case EventPhase::kFlowEnd:
      return 'f';
    case EventPhase::kCounter:
      return 'C';
    case EventPhase::kMetadata:
      return 'M';
    case EventPhase::kUnspecified:
      break;
  }
  return 'X';
}

// Shortest text that reads back as the same double.
void AppendDouble(double value, std::string& out) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
}

// Grid, block and input types were arrays in the source and are kept as compact
// JSON text.
bool IsJsonValuedArg(ArgKey key) {
  return key == ArgKey::kGrid || key == ArgKey::kBlock ||
         key == ArgKey::kInputTypes;
}

void AppendKey(std::string_view key, bool& first, std::string& out) {
  if (!first) out.push_back(',');
  first = false;
  AppendJsonString(key, out);
  out.push_back(':');
}

void AppendIdArg(std::string_view key, int64_t value, int64_t none, bool& first,
                 std::string& out) {
  if (value == none) return;
  AppendKey(key, first, out);
  base::StrAppend(&out, value);
}

void AppendArgs(const Trace& trace, size_t i, std::string& out) {
  const EventTable& t = trace.events;
  bool first = true;
  out.append(",\"args\":{");
  AppendIdArg("correlation", t.correlation[i], kNoId, first, out);
  AppendIdArg("External id", t.external_id[i], kNoId, first, out);
  AppendIdArg("Sequence number", t.sequence_number[i], kNoSequence, first, out);
  AppendIdArg("Fwd thread id", t.forward_thread_id[i], kNoId, first, out);
  AppendIdArg("Python id", t.python_id[i], kNoSequence, first, out);
  AppendIdArg("Python parent id", t.python_parent_id[i], kNoSequence, first,
              out);
  if (t.input_shapes[i].value != 0) {
    AppendKey("Input Dims", first, out);
    out.append(trace.strings.Get(t.input_shapes[i]));
  }
  for (uint32_t a = t.arg_begin[i]; a < t.arg_begin[i + 1]; ++a) {
    const ArgKey key = trace.args.key[a];
    if (key == ArgKey::kFlowBindingEnclosing)
      continue;  // written as "bp" on the event
    AppendKey(ArgJsonName(key), first, out);
    switch (ArgTypeOf(key)) {
      case ArgType::kInt:
        base::StrAppend(&out, trace.args.int_value[a]);
        break;
      case ArgType::kDouble:
        AppendDouble(trace.args.double_value[a], out);
        break;
      case ArgType::kString: {
        const std::string_view text =
            trace.strings.Get(trace.args.string_value[a]);
        if (IsJsonValuedArg(key) && !text.empty() &&
            (text[0] == '[' || text[0] == '{')) {
          out.append(text);
        } else {
          AppendJsonString(text, out);
        }
        break;
      }
    }
  }
  out.push_back('}');
}

// A pid/tid: the number, or for the negative ids the reader gives named ones
// (kineto_events.cc), the name again, so the written trace reads back the same.
void AppendProcessOrThread(const Trace& trace, int64_t id, std::string& out) {
  if (id >= 0 || static_cast<uint64_t>(-1 - id) >= trace.strings.size()) {
    base::StrAppend(&out, id);
    return;
  }
  AppendJsonString(trace.strings.Get(StringId{static_cast<uint32_t>(-1 - id)}),
                   out);
}

void AppendMetadata(const TraceMetadata& metadata, std::string& out) {
  out.append("\"schemaVersion\":1");
  if (!metadata.devices.empty()) {
    out.append(",\"deviceProperties\":[");
    for (size_t d = 0; d < metadata.devices.size(); ++d) {
      const DeviceInfo& device = metadata.devices[d];
      if (d > 0) out.push_back(',');
      base::StrAppend(&out, "{\"id\":", device.id, ",\"name\":");
      AppendJsonString(device.name, out);
      base::StrAppend(&out,
                      ",\"totalGlobalMem\":", device.total_global_mem_bytes,
                      ",\"computeMajor\":", device.compute_major,
                      ",\"computeMinor\":", device.compute_minor,
                      ",\"maxThreadsPerMultiprocessor\":",
                      device.max_threads_per_multiprocessor,
                      ",\"warpSize\":", device.warp_size,
                      ",\"numSms\":", device.num_sms, "}");
    }
    out.push_back(']');
  }
  if (metadata.has_distributed_info) {
    out.append(",\"distributedInfo\":{\"backend\":");
    AppendJsonString(metadata.backend, out);
    base::StrAppend(&out, ",\"rank\":", metadata.rank,
                    ",\"world_size\":", metadata.world_size, "}");
  }
  if (metadata.base_time_ns != 0) {
    base::StrAppend(&out, ",\"baseTimeNanoseconds\":", metadata.base_time_ns);
  }
  if (!metadata.trace_name.empty()) {
    out.append(",\"traceName\":");
    AppendJsonString(metadata.trace_name, out);
  }
}

}  // namespace

void AppendJsonString(std::string_view text, std::string& out) {
  out.push_back('"');
  for (const char c : text) {
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          constexpr char kHex[] = "0123456789abcdef";
          out.append("\\u00");
          out.push_back(kHex[(c >> 4) & 0xf]);
          out.push_back(kHex[c & 0xf]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

void ChromeTraceStream::Begin(const TraceMetadata& metadata, std::string& out) {
  out.append("{\n");
  AppendMetadata(metadata, out);
  out.append(",\n\"traceEvents\":[\n");
  first_event_ = true;
}

void ChromeTraceStream::Append(const Trace& trace, size_t begin, size_t end,
                               std::string& out) {
  const EventTable& t = trace.events;
  for (size_t i = begin; i < end; ++i) {
    if (!first_event_) out.append(",\n");
    first_event_ = false;
    out.append("{\"ph\":\"");
    out.push_back(PhaseLetter(t.phase[i]));
    out.push_back('"');
    if (t.category[i].value != 0) {
      out.append(",\"cat\":");
      AppendJsonString(trace.strings.Get(t.category[i]), out);
    }
    out.append(",\"name\":");
    AppendJsonString(trace.strings.Get(t.name[i]), out);
    out.append(",\"pid\":");
    AppendProcessOrThread(trace, t.pid[i], out);
    out.append(",\"tid\":");
    AppendProcessOrThread(trace, t.tid[i], out);
    out.append(",\"ts\":");
    AppendNanosAsMicros(t.start_ns[i], out);
    if (t.phase[i] == EventPhase::kComplete) {
      out.append(",\"dur\":");
      AppendNanosAsMicros(t.duration_ns[i], out);
    }
    if (t.kind[i] == EventKind::kFlow) {
      base::StrAppend(&out, ",\"id\":", t.flow_id[i]);
      if (trace.IntArg(i, ArgKey::kFlowBindingEnclosing).has_value())
        out.append(",\"bp\":\"e\"");
    }
    AppendArgs(trace, i, out);
    out.push_back('}');
  }
}

void ChromeTraceStream::End(std::string& out) { out.append("\n]}\n"); }

void WriteChromeTrace(const Trace& trace, std::string& out) {
  ChromeTraceStream stream;
  stream.Begin(trace.metadata, out);
  stream.Append(trace, 0, trace.events.size(), out);
  stream.End(out);
}

}  // namespace profdiff::trace
