#include "trace/windowed_part.h"

namespace profdiff::trace {

bool WindowedPart::Parse(const char* text, size_t start, size_t end,
                         size_t capacity) {
  const std::string_view window(text + start, end + 1 - start);
  absl::Status parsed;
  if (!events_.has_value()) {
    events_.emplace(out_, window, source_, limits_, arg_names_);
    parsed = events_->Parse(parser_, capacity,
                            kineto::TraceParser::Mode::kEventPart);
  } else {
    parsed = events_->ParseNextPart(parser_, window, capacity);
  }
  return parsed.ok() && out_.events.size() < limits_.max_events;
}

std::vector<StringIdRow> WindowedPart::string_id_rows() const {
  return events_.has_value() ? events_->string_id_rows()
                             : std::vector<StringIdRow>{};
}

}  // namespace profdiff::trace
