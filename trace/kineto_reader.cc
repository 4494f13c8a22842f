// The reader: a file (or bytes) loaded, then parsed in parts on several
// threads (event_part_reader.h) or in one pass (kineto_parser.h).
#include "trace/kineto_reader.h"

#include <optional>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "base/status_macros.h"
#include "base/str_cat.h"
#include "trace/event_part_reader.h"
#include "trace/inflating_part_reader.h"
#include "trace/kineto_parser.h"
#include "trace/kineto_vocabulary.h"
#include "trace/plain_frame_filter.h"
#include "trace/streamed_events.h"
#include "trace/trace_file.h"
#include "trace/windowed_part.h"

namespace profdiff::trace {
namespace {

using kineto::AllocateParser;
using kineto::TraceParser;
namespace od = simdjson::ondemand;

// The single pass, as EventPartReader runs it on the parts of one file.
class KinetoPartParser final : public PartParser {
 public:
  // `whole_parser` parses the text around the event array; `frames` takes
  // the plain frames out of parts read in turn (plain_frame_filter.h).
  KinetoPartParser(std::string_view source, const ReaderLimits& limits,
                   const ArgNameTable& arg_names, od::parser& whole_parser,
                   PlainFrameFilter& frames)
      : source_(source),
        limits_(limits),
        arg_names_(arg_names),
        whole_parser_(whole_parser),
        frames_(frames) {}

  absl::Status Prepare(size_t text_bytes, od::parser& parser) const override {
    return AllocateParser(parser, text_bytes, limits_, source_);
  }

  // A part's error is never shown: the file is then read in one pass, which
  // gives the exact one.
  absl::Status ParseEvents(
      std::string_view text, size_t capacity, od::parser& parser, Trace& out,
      std::vector<StringIdRow>& string_id_rows) const override {
    PlainFrameFilter frames;  // one per thread
    WindowedPart part(out, source_, limits_, arg_names_, parser, frames);
    if (!part.Parse(text.data(), 0, text.size() - 1, capacity))
      return PartFailed();
    string_id_rows = part.string_id_rows();
    return absl::OkStatus();
  }

  absl::Status ParseEventsInTurn(const std::vector<Text>& texts,
                                 od::parser& parser,
                                 Trace& out) const override {
    WindowedPart parts(out, source_, limits_, arg_names_, parser, frames_);
    for (const Text& part : texts) {
      if (!parts.Parse(part.text.data(), 0, part.text.size() - 1,
                       part.capacity)) {
        return PartFailed();
      }
    }
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
  absl::Status PartFailed() const {
    return absl::InvalidArgumentError(
        base::StrCat(source_, ": a part failed; read in one pass"));
  }

  std::string_view source_;
  const ReaderLimits& limits_;
  const ArgNameTable& arg_names_;
  od::parser& whole_parser_;
  PlainFrameFilter& frames_;
};

}  // namespace

class KinetoReader::Impl {
 public:
  Impl(ReaderLimits limits, ReadParallelism parallelism)
      : limits_(limits), parallelism_(parallelism) {}

  absl::StatusOr<Trace> ReadFile(const std::string& path) {
    PD_ASSIGN_OR_RETURN(const std::string_view bytes,
                        buffer_.ReadFileBytes(path, limits_));
    return ReadBytes(bytes, path);
  }

  absl::StatusOr<Trace> ReadBytes(std::string_view bytes,
                                  std::string_view source) {
    last_read_streamed_ = false;
    last_read_while_inflating_ = false;
    if (std::optional<Trace> streamed = ReadStreamed(bytes, source))
      return std::move(*streamed);
    PD_RETURN_IF_ERROR(buffer_.LoadBytes(bytes, source, limits_));
    return Parse(source);
  }

  size_t last_read_parts() const { return last_read_parts_; }
  bool last_read_streamed() const { return last_read_streamed_; }
  bool last_read_while_inflating() const { return last_read_while_inflating_; }

 private:
  struct PartPlan {
    size_t parts;
    EventPartReader::Schedule schedule;
  };

  // Parts on several threads at once when the JSON is large enough for them,
  // else parts read in turn on this thread (1: one pass).
  PartPlan PlanParts(size_t json_bytes) const {
    if (const size_t parts = EventPartCount(json_bytes, parallelism_);
        parts > 1)
      return {parts, EventPartReader::Schedule::kAtOnce};
    return {InTurnPartCount(json_bytes, parallelism_),
            EventPartReader::Schedule::kInTurn};
  }

  // Gzip that would be read in parts in turn on this thread is read from the
  // stream instead, never held whole (streamed_events.h); gzip that would be
  // read in two parts at once is parsed while it inflates
  // (inflating_part_reader.h). nullopt: read it whole.
  std::optional<Trace> ReadStreamed(std::string_view bytes,
                                    std::string_view source) {
    if (!IsGzip(bytes)) return std::nullopt;
    const PartPlan plan = PlanParts(GunzippedSizeGuess(bytes));
    if (plan.schedule == EventPartReader::Schedule::kAtOnce &&
        plan.parts == 2 && parallelism_.in_turn_part_bytes != 0) {
      std::optional<Trace> trace =
          inflating_.Read(bytes, source, limits_, arg_names_,
                          parallelism_.in_turn_part_bytes, parser_);
      if (trace.has_value()) {
        last_read_parts_ = inflating_.parts();
        last_read_while_inflating_ = true;
      }
      return trace;
    }
    if (plan.schedule != EventPartReader::Schedule::kInTurn || plan.parts <= 1)
      return std::nullopt;
    std::optional<Trace> trace =
        streamed_.Read(bytes, source, limits_, arg_names_,
                       parallelism_.in_turn_part_bytes, parser_);
    if (trace.has_value()) {
      last_read_parts_ = streamed_.parts();
      last_read_streamed_ = true;
    }
    return trace;
  }

  absl::StatusOr<Trace> Parse(std::string_view source) {
    const std::string_view json = buffer_.json();
    last_read_parts_ = 1;
    const PartPlan plan = PlanParts(json.size());
    if (plan.parts > 1) {
      KinetoPartParser part_parser(source, limits_, arg_names_, parser_,
                                   frames_);
      if (std::optional<EventPartReader::Result> read =
              part_reader_.Read(buffer_, source, plan.parts, limits_.max_events,
                                part_parser, plan.schedule)) {
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
  StreamedEventReader streamed_;
  InflatingPartReader inflating_;
  PlainFrameFilter frames_;  // for parts of a held text read in turn
  size_t last_read_parts_ = 1;
  bool last_read_streamed_ = false;
  bool last_read_while_inflating_ = false;
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

bool KinetoReader::last_read_streamed() const {
  return impl_->last_read_streamed();
}

bool KinetoReader::last_read_while_inflating() const {
  return impl_->last_read_while_inflating();
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
  return status.GetPayload(base::ToAbsl(kineto::kNotATracePayload)).has_value();
}

}  // namespace profdiff::trace
