#include "trace/event_split.h"

#include <algorithm>
#include <cstring>

namespace profdiff::trace {
namespace {

// How far past a dividing point to look for a cut: Kineto events are under 2
// KB, so a window this wide always holds several line starts when the writer
// indents.
constexpr size_t kSearchWindowBytes = 1 << 20;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
bool IsSpace(char c) { return IsBlank(c) || c == '\n'; }

// The last non-space offset before `end`, or npos.
size_t LastNonSpaceBefore(std::string_view json, size_t end) {
  while (end > 0 && IsSpace(json[end - 1])) --end;
  return end == 0 ? std::string_view::npos : end - 1;
}

}  // namespace

bool CutAtNewline(std::string_view json, size_t newline, EventCut* cut) {
  size_t next = newline + 1;
  while (next < json.size() && IsBlank(json[next])) ++next;
  if (next >= json.size() || json[next] != '{') return false;
  size_t comma = newline;
  while (comma > 0 && IsBlank(json[comma - 1])) --comma;
  if (comma == 0 || json[comma - 1] != ',') return false;
  --comma;
  const size_t close = LastNonSpaceBefore(json, comma);
  if (close == std::string_view::npos || json[close] != '}') return false;
  *cut = {comma, next};
  return true;
}

size_t EventArrayBegin(std::string_view json) {
  const size_t first = json.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return std::string_view::npos;
  if (json[first] == '[') return first;
  const size_t key = json.find("\"traceEvents\"");
  if (key == std::string_view::npos) return std::string_view::npos;
  return json.find('[', key);
}

size_t EventArrayEnd(std::string_view json, size_t begin) {
  for (size_t close = json.rfind(']');
       close != std::string_view::npos && close > begin;
       close = json.rfind(']', close - 1)) {
    const size_t before = LastNonSpaceBefore(json, close);
    if (before != std::string_view::npos && json[before] == '}') return close;
  }
  return std::string_view::npos;
}

bool LastCutIn(std::string_view json, size_t from, EventCut* cut) {
  for (size_t end = json.size(); end > from;) {
    const void* newline = memrchr(json.data() + from, '\n', end - from);
    if (newline == nullptr) return false;
    const size_t at =
        static_cast<size_t>(static_cast<const char*>(newline) - json.data());
    if (CutAtNewline(json, at, cut) && cut->comma > from) return true;
    end = at;
  }
  return false;
}

bool FirstCutIn(std::string_view json, size_t from, size_t limit,
                EventCut* cut) {
  limit = std::min(limit, json.size());
  for (size_t at = from; at < limit; ++at) {
    const void* newline = std::memchr(json.data() + at, '\n', limit - at);
    if (newline == nullptr) return false;
    at = static_cast<size_t>(static_cast<const char*>(newline) - json.data());
    if (CutAtNewline(json, at, cut)) return true;
  }
  return false;
}

namespace {

// The event array's brackets (EventArrayBegin, EventArrayEnd).
bool FindArray(std::string_view json, size_t* begin, size_t* end) {
  const size_t first = EventArrayBegin(json);
  if (first == std::string_view::npos) return false;
  const size_t last = EventArrayEnd(json, first);
  if (last == std::string_view::npos) return false;
  *begin = first;
  *end = last;
  return true;
}

}  // namespace

EventSplit FindEventSplit(std::string_view json, size_t parts) {
  EventSplit split;
  if (parts < 2 || !FindArray(json, &split.array_begin, &split.array_end))
    return split;
  const size_t span = split.array_end - split.array_begin;
  size_t from = split.array_begin;
  for (size_t k = 1; k < parts; ++k) {
    size_t at = std::max(from, split.array_begin + span / parts * k);
    const size_t limit = std::min(split.array_end, at + kSearchWindowBytes);
    if (EventCut cut; FirstCutIn(json, at, limit, &cut)) {
      split.cuts.push_back(cut);
      from = cut.next + 1;
    }
  }
  return split;
}

}  // namespace profdiff::trace
