#include "trace/event_split.h"

#include <cstring>

namespace profdiff::trace {
namespace {

// How far past a dividing point to look for a cut: Kineto events are under 2 KB, so a window
// this wide always holds several line starts when the writer indents.
constexpr size_t kSearchWindowBytes = 1 << 20;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The cut at the newline at `newline`, when the text around it reads "}<ws>,<ws>\n<ws>{".
bool CutAtNewline(std::string_view json, size_t newline, EventCut* cut) {
  size_t next = newline + 1;
  while (next < json.size() && IsBlank(json[next])) ++next;
  if (next >= json.size() || json[next] != '{') return false;
  size_t comma = newline;
  while (comma > 0 && IsBlank(json[comma - 1])) --comma;
  if (comma == 0 || json[comma - 1] != ',') return false;
  --comma;
  size_t close = comma;
  while (close > 0 && (IsBlank(json[close - 1]) || json[close - 1] == '\n')) --close;
  if (close == 0 || json[close - 1] != '}') return false;
  *cut = {comma, next};
  return true;
}

}  // namespace

std::vector<EventCut> FindEventCuts(std::string_view json, size_t parts) {
  std::vector<EventCut> cuts;
  if (parts < 2) return cuts;
  // The events start at the first '[' after "traceEvents", or at the top-level '['. A wrong
  // start only moves the dividing points.
  size_t begin = json.find("\"traceEvents\"");
  begin = json.find('[', begin == std::string_view::npos ? 0 : begin);
  if (begin == std::string_view::npos) return cuts;
  const size_t span = json.size() - begin;
  size_t from = begin;
  for (size_t k = 1; k < parts; ++k) {
    size_t at = std::max(from, begin + span / parts * k);
    const size_t limit = std::min(json.size(), at + kSearchWindowBytes);
    EventCut cut;
    bool found = false;
    while (at < limit) {
      const void* newline = std::memchr(json.data() + at, '\n', limit - at);
      if (newline == nullptr) break;
      at = static_cast<size_t>(static_cast<const char*>(newline) - json.data());
      if (CutAtNewline(json, at, &cut)) {
        found = true;
        break;
      }
      ++at;
    }
    if (!found) continue;
    cuts.push_back(cut);
    from = cut.next + 1;
  }
  return cuts;
}

}  // namespace profdiff::trace
