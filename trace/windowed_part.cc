#include "trace/windowed_part.h"

namespace profdiff::trace {

bool WindowedPart::Parse(const char* text, size_t start, size_t end,
                         size_t capacity) {
  std::string_view window(text + start, end + 1 - start);
  const bool filtered = PlainFrameFilter::Applies(limits_) &&
                        frames_.Filter(text, start, end, limits_);
  if (filtered) {
    window = frames_.json();
    capacity = frames_.capacity();
  }
  const bool first = !events_.has_value();
  if (first) events_.emplace(out_, window, source_, limits_, arg_names_);
  events_->set_seams(filtered ? &frames_.seams() : nullptr);
  const absl::Status parsed =
      first ? events_->Parse(parser_, capacity,
                             kineto::TraceParser::Mode::kEventPart)
            : events_->ParseNextPart(parser_, window, capacity);
  if (!parsed.ok()) return false;
  if (filtered) {
    out_.counters.python_frames_left_out += frames_.frames();
    out_.left_out_frames.back().Add(frames_.extent(), 0);
  }
  return out_.events.size() < limits_.max_events;
}

std::vector<StringIdRow> WindowedPart::string_id_rows() const {
  return events_.has_value() ? events_->string_id_rows()
                             : std::vector<StringIdRow>{};
}

}  // namespace profdiff::trace
