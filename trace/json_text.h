// Reading raw JSON text without a parser: the lexing the Kineto reader does
// beside simdjson (key text in place, whitespace, nesting depth, compacting,
// integers written as strings, locating invalid UTF-8). Like Perfetto's
// importers/json/json_utils.h.
//
// Design:
// 1. Functions that take `const char* raw` read raw key text in simdjson's
// input: it starts after the opening quote and is still escaped. They may read
// past the key's closing quote, which stays inside simdjson's padding
// (kJsonPadding in trace_file.h); they must not be given unpadded text.
// 2. Nothing here unescapes: an escaped spelling never equals a plain name,
// which is what the reader wants of keys.
#ifndef PROFDIFF_TRACE_JSON_TEXT_H_
#define PROFDIFF_TRACE_JSON_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace profdiff::trace {

// Whether the raw key text at `raw` is exactly `name` followed by its closing
// quote. `name` holds no quote or backslash, so a match cannot be an escape
// sequence. Reads name.size() + 1 bytes.
inline bool RawKeyIs(const char* raw, std::string_view name);

// RawKeyIs for a literal `name`: a constant-length compare the compiler
// inlines (the reader calls it for every field of every event).
template <size_t N>
bool RawKeyIsLiteral(const char* raw, const char (&name)[N]) {
  return std::memcmp(raw, name, N - 1) == 0 && raw[N - 1] == '"';
}

// The raw key text at `raw` up to its closing quote, escapes left as written
// (`a\"b"` gives `a\"b`).
std::string_view RawKeyText(const char* raw);

// `text` without trailing JSON whitespace (space, \n, \r, \t); simdjson's raw
// tokens end with the whitespace that follows them.
inline std::string_view TrimTrailingSpace(std::string_view text);

// The deepest nesting of brackets ('[' and '{') in JSON text `raw`; brackets
// inside strings do not count. 0 for a scalar.
uint32_t JsonNestingDepth(std::string_view raw);

// Replaces `out` with JSON text `raw` without the whitespace outside strings,
// so "[[1, 3], []]" and "[[1,3],[]]" give the same text whatever the writer's
// spacing.
void CompactJson(std::string_view raw, std::string& out);

// Parses all of `text` as a decimal or 0x-prefixed hexadecimal int64 (ROCm
// traces quote some integers: "256", "0x0"). False, *out unspecified, for
// anything else, an empty text, or a value out of range.
bool ParseIntegerText(std::string_view text, int64_t* out);

// Whether the 8 bytes at `p` are all ASCII digits; if so, *value is the number
// they spell: one load and a few multiplies in place of eight turns of a loop
// (a timestamp has 13 integer digits, and every event has one).
inline bool EightDigits(const char* p, uint32_t* value);

// The offset of the first byte of `text` that does not begin a complete UTF-8
// sequence of the right shape (lead byte, then continuation bytes), or
// text.size() when there is none. It locates the byte for a message after
// simdjson reported the text invalid; it does not itself validate
// (overlong forms and surrogates pass).
size_t FirstInvalidUtf8(std::string_view text);

// Inline below: the reader calls these for every key and string value, and
// out of line they cost it 2% more instructions (callgrind, bench/reader_bench
// BM_Read/2/1).

inline bool RawKeyIs(const char* raw, std::string_view name) {
  return std::memcmp(raw, name.data(), name.size()) == 0 &&
         raw[name.size()] == '"';
}

inline bool EightDigits(const char* p, uint32_t* value) {
  uint64_t chunk;
  std::memcpy(&chunk, p, sizeof(chunk));
  // Every byte in '0'..'9': its high nibble is 3, and adding 6 keeps it 3.
  constexpr uint64_t kHighNibbles = 0xF0F0F0F0F0F0F0F0ULL;
  constexpr uint64_t kThrees = 0x3030303030303030ULL;
  if ((chunk & kHighNibbles) != kThrees ||
      ((chunk + 0x0606060606060606ULL) & kHighNibbles) != kThrees) {
    return false;
  }
  // Pairs, then quads, then all eight digits combined (the first byte is the
  // most significant digit on a little-endian load).
  chunk = ((chunk & 0x0F0F0F0F0F0F0F0FULL) * 2561) >> 8;
  chunk = ((chunk & 0x00FF00FF00FF00FFULL) * 6553601) >> 16;
  *value = static_cast<uint32_t>(
      ((chunk & 0x0000FFFF0000FFFFULL) * 42949672960001ULL) >> 32);
  return true;
}

inline std::string_view TrimTrailingSpace(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' ||
                           text.back() == '\r' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return text;
}

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_JSON_TEXT_H_
