#include "trace/json_text.h"

#include <algorithm>
#include <charconv>
#include <system_error>

namespace profdiff::trace {

std::string_view RawKeyText(const char* raw) {
  const char* end = raw;
  while (*end != '"') end += (*end == '\\') ? 2 : 1;
  return {raw, static_cast<size_t>(end - raw)};
}

uint32_t JsonNestingDepth(std::string_view raw) {
  uint32_t depth = 0;
  uint32_t deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

void CompactJson(std::string_view raw, std::string& out) {
  out.clear();
  bool in_string = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (in_string) {
      out.push_back(c);
      if (c == '\\' && i + 1 < raw.size()) {
        out.push_back(raw[++i]);
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
      out.push_back(c);
    } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      out.push_back(c);
    }
  }
}

bool ParseIntegerText(std::string_view text, int64_t* out) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  if (text.empty()) return false;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), *out, base);
  return error == std::errc() && end == text.data() + text.size();
}

size_t FirstInvalidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xe  ? 3
                 : (c >> 3) == 0x1e ? 4
                                    : 0;
    if (len == 0 || i + len > text.size()) return i;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return i;
    }
    i += len;
  }
  return text.size();
}

}  // namespace profdiff::trace
