#include "trace/plain_frame_filter.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <absl/base/attributes.h>
#include <simdjson.h>

#include "base/page_size.h"
#include "trace/decimal_time.h"
#include "trace/kineto_vocabulary.h"
#include "trace/trace_file.h"

namespace profdiff::trace {
namespace {

// How Kineto writes a frame's first three fields, up to its name's text.
constexpr std::string_view kFrameStart =
    R"("ph": "X", "cat": "python_function", "name": ")";

// How Kineto writes what is between a frame's '}' and the next frame's name:
// the separator, the next object's '{' and its first three fields.
constexpr std::string_view kFrameSeparator =
    ",\n  {\n    \"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"";
static_assert(kFrameSeparator.ends_with(kFrameStart));

// The longest string of the spelling, whose length one pass checks.
constexpr std::string_view kFrameCategory = "python_function";

// An object of arguments is at depth 3: the array, the event, its "args".
constexpr uint32_t kFrameDepth = 3;

ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool IsJsonSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* SkipSpace(const char* c,
                                                          const char* limit) {
  while (c < limit && IsJsonSpace(*c)) ++c;
  return c;
}

// Eight bytes read as one word: each byte's copy of a value, and each byte's
// high bit.
constexpr uint64_t kOnes = 0x0101010101010101;
constexpr uint64_t kHigh = 0x8080808080808080;
// A word's first byte is its lowest (countr_zero finds the first marked).
static_assert(std::endian::native == std::endian::little);

ABSL_ATTRIBUTE_ALWAYS_INLINE inline uint64_t LoadWord(const char* c) {
  uint64_t x;
  std::memcpy(&x, c, 8);
  return x;
}

#if !defined(__SSE2__)
// The high bit of each byte of `x` that is `byte`. Exact up to the first such
// byte: the borrow from it may mark bytes after it.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline uint64_t BytesEqualTo(uint64_t x,
                                                          uint8_t byte) {
  const uint64_t zeroed = x ^ (kOnes * byte);
  return (zeroed - kOnes) & ~zeroed & kHigh;
}

// The high bit of each byte of `x` below 0x20, exact up to the first such.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline uint64_t ControlBytes(uint64_t x) {
  return (x - kOnes * 0x20) & ~x & kHigh;
}
#endif

// `end` closes the string whose text starts at `c`: accepted unless a byte of
// it was 0x80 or above (`high`) and the text is not UTF-8.
const char* PlainStringEnd(const char* c, const char* end, bool high) {
  if (high && !simdjson::validate_utf8(c, static_cast<size_t>(end - c)))
    return nullptr;
  return end;
}

// The closing quote of the string whose text starts at `c`, when one pass
// would take that text as it is and accept it: no escape (one pass would
// unescape it), no control character and valid UTF-8 (stage 1 would refuse
// it). nullptr otherwise. Sixteen bytes at a time (SSE2, x86-64's baseline),
// else eight as a word: frame names are short, and a search for the quote
// before a scan of the text was a call and a byte loop per frame.
const char* ScanPlainString(const char* c, const char* limit) {
  bool high = false;  // whether a byte of the text is 0x80 or above
  const char* p = c;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i last_control = _mm_set1_epi8(0x1f);
  for (; limit - p >= 16; p += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // A byte is a control character when it is its minimum with 0x1f.
    const auto stops = static_cast<uint32_t>(_mm_movemask_epi8(_mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
        _mm_cmpeq_epi8(_mm_min_epu8(x, last_control), x))));
    const auto highs = static_cast<uint32_t>(_mm_movemask_epi8(x));
    if (stops == 0) {
      high |= highs != 0;
      continue;
    }
    const int first = std::countr_zero(stops);
    if (p[first] != '"') return nullptr;
    high |= (highs & ((uint32_t{1} << first) - 1)) != 0;
    return PlainStringEnd(c, p + first, high);
  }
#else
  uint64_t high_bits = 0;
  for (; limit - p >= 8; p += 8) {
    const uint64_t x = LoadWord(p);
    const uint64_t quote = BytesEqualTo(x, '"');
    const uint64_t refused = BytesEqualTo(x, '\\') | ControlBytes(x);
    if ((quote | refused | (x & kHigh)) == 0) continue;  // most words
    // Marks past the first quote may be borrows; none before it is, unless
    // an earlier byte of its own kind refuses the text anyway.
    const uint64_t before = quote == 0 ? ~uint64_t{0} : (quote & -quote) - 1;
    if ((refused & before) != 0) return nullptr;
    high_bits |= x & kHigh & before;
    if (quote != 0) {
      return PlainStringEnd(c, p + std::countr_zero(quote) / 8, high_bits != 0);
    }
  }
  high = high_bits != 0;
#endif
  for (; p < limit; ++p) {
    const auto byte = static_cast<unsigned char>(*p);
    if (byte == '"') return PlainStringEnd(c, p, high);
    if (byte == '\\' || byte < 0x20) return nullptr;
    if (byte >= 0x80) high = true;
  }
  return nullptr;
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// The high bit of each non-zero byte of `x`, and only those.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline uint64_t NonZeroBytes(uint64_t x) {
  return (((x & ~kHigh) + ~kHigh) | x) & kHigh;
}

// The high bit of each byte of `x` that is not '0'..'9': its high nibble is
// not 3, or its low nibble plus 6 carries into the high one (no carry crosses
// a byte: at most 0x0f + 0x06).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline uint64_t NonDigitBytes(uint64_t x) {
  return NonZeroBytes(((x & kOnes * 0xf0) ^ kOnes * 0x30) |
                      (((x & kOnes * 0x0f) + kOnes * 0x06) & kOnes * 0xf0));
}

// Eight bytes at a time where eight are left: the numbers after a frame's name
// (its ids, times and "Ev Idx") vary in length from frame to frame, and a
// byte loop mispredicts its exit on each.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* SkipDigits(const char* c,
                                                           const char* limit) {
  while (limit - c >= 8) {
    if (const uint64_t other = NonDigitBytes(LoadWord(c)); other != 0)
      return c + std::countr_zero(other) / 8;
    c += 8;
  }
  while (c < limit && IsDigit(*c)) ++c;
  return c;
}

// Whether each of the n >= Width bytes at `c` lies in its byte's range of the
// template, from low[i] to low[i] + span[i], a vector of Width bytes at a time
// and without a branch per vector: where the differing bytes fall varies from
// frame to frame. A wrapping subtraction and an unsigned compare a vector (a
// byte below its low end wraps to above its span); the last vector overlaps
// the one before. Vectors are GCC's extension: SSE2 or AVX2 on x86-64, NEON on
// ARM.
template <size_t Width>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool InRanges(const char* c,
                                                  const char* low,
                                                  const char* span, size_t n) {
  using Bytes = unsigned char __attribute__((vector_size(Width)));
  Bytes in = ~Bytes{};  // all-ones per byte while every byte is in range
  const auto compare = [&](size_t at) {
    Bytes x;
    Bytes from;
    Bytes up_to;
    std::memcpy(&x, c + at, Width);
    std::memcpy(&from, low + at, Width);
    std::memcpy(&up_to, span + at, Width);
    in &= x - from <= up_to;
  };
  for (size_t at = 0; at + Width < n; at += Width) compare(at);
  compare(n - Width);
  uint64_t words[Width / 8];
  std::memcpy(words, &in, sizeof(words));
  uint64_t all = ~uint64_t{0};
  for (const uint64_t word : words) all &= word;
  return all == ~uint64_t{0};
}

}  // namespace

namespace plain_frame_filter_internal {

bool InRanges16(const char* c, const char* low, const char* span, size_t n) {
  return InRanges<16>(c, low, span, n);
}

#if defined(__x86_64__)
namespace {
__attribute__((target("avx2"))) bool InRangesAvx2(const char* c,
                                                  const char* low,
                                                  const char* span, size_t n) {
  return n < 32 ? InRanges<16>(c, low, span, n) : InRanges<32>(c, low, span, n);
}
}  // namespace
#endif

bool InRangesWidest(const char* c, const char* low, const char* span,
                    size_t n) {
  using Function = bool (*)(const char*, const char*, const char*, size_t);
  static const Function kFunction = [] {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) return &InRangesAvx2;
#endif
    return &InRanges16;
  }();
  return kFunction(c, low, span, n);
}

}  // namespace plain_frame_filter_internal

namespace {

// One past a number in JSON's grammar starting at `c`, or nullptr.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* ScanNumber(const char* c,
                                                           const char* limit) {
  if (c < limit && *c == '-') ++c;
  if (c >= limit || !IsDigit(*c)) return nullptr;
  c = *c == '0' ? c + 1 : SkipDigits(c, limit);
  if (c < limit && *c == '.') {
    const char* digits = c + 1;
    c = SkipDigits(digits, limit);
    if (c == digits) return nullptr;
  }
  if (c < limit && (*c == 'e' || *c == 'E')) {
    ++c;
    if (c < limit && (*c == '+' || *c == '-')) ++c;
    const char* digits = c;
    c = SkipDigits(digits, limit);
    if (c == digits) return nullptr;
  }
  return c;
}

template <typename Word>
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool SameWord(const char* a,
                                                  const char* b) {
  Word x;
  Word y;
  std::memcpy(&x, a, sizeof(Word));
  std::memcpy(&y, b, sizeof(Word));
  return x == y;
}

// Inline, eight bytes at a time: the pieces compared are short, and a call
// to memcmp for each was a tenth of the filter's time. The tail is one word
// that overlaps what was compared (two for under eight bytes), not a byte
// loop: that loop was a third of a matched layout's instructions.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool SameBytes(const char* a, const char* b,
                                                   size_t n) {
  if (n >= 8) {
    const size_t last = n - 8;
    for (size_t i = 0; i < last; i += 8) {
      if (!SameWord<uint64_t>(a + i, b + i)) return false;
    }
    return SameWord<uint64_t>(a + last, b + last);
  }
  if (n >= 4) {
    return SameWord<uint32_t>(a, b) && SameWord<uint32_t>(a + n - 4, b + n - 4);
  }
  if (n >= 2) {
    return SameWord<uint16_t>(a, b) && SameWord<uint16_t>(a + n - 2, b + n - 2);
  }
  return n == 0 || *a == *b;
}

const char* ScanLiteral(const char* c, const char* limit,
                        std::string_view literal) {
  if (static_cast<size_t>(limit - c) < literal.size() ||
      !SameBytes(c, literal.data(), literal.size())) {
    return nullptr;
  }
  return c + literal.size();
}

// One past the key and its ':' at `c` (its opening quote), blanks after
// included; the key's text in *key. nullptr when it is not a plain string.
const char* ScanKey(const char* c, const char* limit, std::string_view* key) {
  if (c >= limit || *c != '"') return nullptr;
  // Keys are short and ASCII: a byte at a time, anything else left to
  // ScanPlainString.
  const char* end = c + 1;
  while (end < limit && *end != '"' && *end != '\\' &&
         static_cast<unsigned char>(*end) >= 0x20 &&
         static_cast<unsigned char>(*end) < 0x80) {
    ++end;
  }
  if (end < limit && *end != '"') end = ScanPlainString(c + 1, limit);
  if (end == nullptr || end >= limit) return nullptr;
  *key = std::string_view(c + 1, static_cast<size_t>(end - c - 1));
  c = SkipSpace(end + 1, limit);
  if (c >= limit || *c != ':') return nullptr;
  return SkipSpace(c + 1, limit);
}

// Notes a frame's layout as the field-by-field match goes: its numbers are
// values, everything else text to compare (FrameLayout).
class LayoutRecorder {
 public:
  LayoutRecorder(FrameLayout* layout, const char* start)
      : layout_(layout), text_start_(start) {
    if (layout_ != nullptr) layout_->Clear();
  }
  void Value(const char* begin, const char* end, FrameLayout::Value value) {
    if (layout_ == nullptr) return;
    layout_->Add(text_start_, begin, value);
    text_start_ = end;
  }
  void End(const char* end) { Value(end, end, FrameLayout::Value::kEnd); }

 private:
  FrameLayout* layout_;
  const char* text_start_;
};

const char* ScanScalar(const char* c, const char* limit,
                       LayoutRecorder& layout) {
  if (c >= limit) return nullptr;
  switch (*c) {
    case '"': {
      const char* end = ScanPlainString(c + 1, limit);
      return end == nullptr ? nullptr : end + 1;
    }
    case 't':
      return ScanLiteral(c, limit, "true");
    case 'f':
      return ScanLiteral(c, limit, "false");
    case 'n':
      return ScanLiteral(c, limit, "null");
    default: {
      const char* end = ScanNumber(c, limit);
      if (end != nullptr) layout.Value(c, end, FrameLayout::Value::kNumber);
      return end;
    }
  }
}

// One past an object of scalars at `c` (its '{'), or nullptr.
const char* ScanFlatObject(const char* c, const char* limit,
                           LayoutRecorder& layout) {
  c = SkipSpace(c + 1, limit);
  if (c < limit && *c == '}') return c + 1;
  for (;;) {
    std::string_view key;
    c = ScanKey(c, limit, &key);
    if (c == nullptr) return nullptr;
    c = ScanScalar(c, limit, layout);
    if (c == nullptr) return nullptr;
    c = SkipSpace(c, limit);
    if (c >= limit) return nullptr;
    if (*c == '}') return c + 1;
    if (*c != ',') return nullptr;
    c = SkipSpace(c + 1, limit);
  }
}

// What one pass reads as a frame's time: the atom's text up to a blank or
// structural character.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline bool IsMicrosChar(char c) {
  return IsDigit(c) || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
}

// One past a time's atom at `c`, read into *ns; nullptr when one pass would
// refuse it.
ABSL_ATTRIBUTE_ALWAYS_INLINE inline const char* ScanMicros(const char* c,
                                                           const char* limit,
                                                           int64_t* ns) {
  const char* atom = c;
  // Kineto's digits, '.' and digits first; a sign, exponent or second '.'
  // then takes the rest of the atom.
  c = SkipDigits(c, limit);
  if (c < limit && *c == '.') c = SkipDigits(c + 1, limit);
  while (c < limit && IsMicrosChar(*c)) ++c;
  if (!ParseMicrosAsNanos(std::string_view(atom, static_cast<size_t>(c - atom)),
                          ns)) {
    return nullptr;
  }
  return c;
}

// The name's closing quote, when one pass would read it as a plain frame's.
const char* ScanFrameName(const char* name, const char* limit,
                          uint32_t max_string_bytes) {
  const char* name_end = ScanPlainString(name, limit);
  if (name_end == nullptr) return nullptr;
  const std::string_view text(name, static_cast<size_t>(name_end - name));
  if (text.size() > max_string_bytes || text.starts_with(kModulePrefix))
    return nullptr;
  return name_end;
}

// The fields after a frame's name, field by field, from `c` just past the
// name's closing quote; the layout learnt into `learnt` (when not null).
const char* MatchFrameFields(const char* c, const char* limit, int64_t* ts_ns,
                             int64_t* dur_ns, FrameLayout* learnt) {
  // Past its name one pass reads only "ts" and "dur"; the rest must be what
  // stage 1 accepts, which this stricter grammar ensures.
  LayoutRecorder layout(learnt, c);
  bool has_ts = false;
  bool has_dur = false;
  for (;;) {
    c = SkipSpace(c, limit);
    if (c >= limit) return nullptr;
    if (*c == '}') break;
    if (*c != ',') return nullptr;
    std::string_view key;
    c = ScanKey(SkipSpace(c + 1, limit), limit, &key);
    if (c == nullptr) return nullptr;
    const bool is_ts = key == "ts";
    if (is_ts || key == "dur") {
      // A repeated time is left to one pass.
      bool& has = is_ts ? has_ts : has_dur;
      if (has) return nullptr;
      has = true;
      const char* atom = c;
      c = ScanMicros(c, limit, is_ts ? ts_ns : dur_ns);
      if (c == nullptr) return nullptr;
      layout.Value(atom, c,
                   is_ts ? FrameLayout::Value::kTs : FrameLayout::Value::kDur);
    } else {
      c = *c == '{' ? ScanFlatObject(c, limit, layout)
                    : ScanScalar(c, limit, layout);
      if (c == nullptr) return nullptr;
    }
  }
  if (!has_ts || !has_dur) return nullptr;
  layout.End(c + 1);
  return c + 1;
}

// What one pass does with a frame matched up to `end` (nullptr: not
// matched): refuses a negative duration, else keeps its start and end.
const char* FrameEnd(const char* end, int64_t ts_ns, int64_t dur_ns,
                     int64_t* start_ns, int64_t* end_ns) {
  if (end == nullptr || dur_ns < 0) return nullptr;
  *start_ns = ts_ns;
  *end_ns = FrameExtent::SaturatingAdd(ts_ns, dur_ns);
  return end;
}

}  // namespace

void FrameLayout::Add(const char* from, const char* to, Value value) {
  text_.append(from, static_cast<size_t>(to - from));
  pieces_.push_back({static_cast<uint32_t>(text_.size()), value});
}

const char* FrameLayout::Match(const char* c, const char* limit, int64_t* ts_ns,
                               int64_t* dur_ns, FrameValues* values) const {
  // Each piece of text ends before a value that cannot continue it (a blank or
  // structural character follows every number), so the greedy scan of a value
  // ends where the field-by-field match would.
  const char* const body = c;
  const auto at = [body](const char* p) {
    return static_cast<uint32_t>(p - body);
  };
  values->numbers.clear();
  size_t text_start = 0;
  for (const Piece& piece : pieces_) {
    const size_t n = piece.text_end - text_start;
    if (static_cast<size_t>(limit - c) < n ||
        !SameBytes(c, text_.data() + text_start, n)) {
      return nullptr;
    }
    c += n;
    text_start = piece.text_end;
    const char* const value = c;
    switch (piece.value) {
      case Value::kNumber:
        values->numbers.push_back(at(value));
        c = ScanNumber(c, limit);
        break;
      case Value::kTs:
        c = ScanMicros(c, limit, ts_ns);
        values->ts_at = at(value);
        values->ts_size = at(c) - values->ts_at;
        break;
      case Value::kDur:
        c = ScanMicros(c, limit, dur_ns);
        values->dur_at = at(value);
        values->dur_size = at(c) - values->dur_at;
        break;
      case Value::kEnd:
        values->size = at(c);
        return c;
    }
    if (c == nullptr) return nullptr;
  }
  return nullptr;
}

void FrameTemplate::Learn(const char* body, const FrameValues& values) {
  values_ = values;
  // A digit may be any digit, any other byte only itself.
  // Sixteen bytes at a time (the last vector overlaps the one before): a
  // byte loop was a tenth of the filter's time on the xDiT trace, whose
  // frames relearn one in twenty.
  const size_t n = values.size;
  low_.resize(n);
  span_.resize(n);
  if (n < 16) return;  // too short to be compared (Match)
  using Bytes = unsigned char __attribute__((vector_size(16)));
  const auto learn = [&](size_t at) {
    Bytes x;
    std::memcpy(&x, body + at, 16);
    const Bytes digit = x - '0' <= 9;  // all-ones per digit
    const Bytes low = (x & ~digit) | ('0' & digit);
    const Bytes span = 9 & digit;
    std::memcpy(low_.data() + at, &low, 16);
    std::memcpy(span_.data() + at, &span, 16);
  };
  for (size_t at = 0; at + 16 < n; at += 16) learn(at);
  learn(n - 16);
}

const char* FrameTemplate::Match(const char* c, const char* limit,
                                 int64_t* ts_ns, int64_t* dur_ns) const {
  const size_t n = low_.size();
  if (n < 16 || static_cast<size_t>(limit - c) < n ||
      !plain_frame_filter_internal::InRangesWidest(c, low_.data(), span_.data(),
                                                   n)) {
    return nullptr;
  }
  // A digit for a digit keeps every token what it was, but an integer part
  // may now start with a '0' before another digit, which JSON refuses. (Not
  // a time's: one pass reads the times' text as it is.)
  for (const uint32_t at : values_.numbers) {
    const char* digits = c + at + (c[at] == '-' ? 1 : 0);
    if (digits[0] == '0' && IsDigit(digits[1])) return nullptr;
  }
  // The times' atoms end where the kept frame's did: what ended them is not
  // a digit, so it is the same.
  if (!ParseMicrosAsNanos(std::string_view(c + values_.ts_at, values_.ts_size),
                          ts_ns) ||
      !ParseMicrosAsNanos(
          std::string_view(c + values_.dur_at, values_.dur_size), dur_ns)) {
    return nullptr;
  }
  return c + n;
}

const char* MatchPlainFrame(const char* name, const char* limit,
                            uint32_t max_string_bytes, int64_t* start_ns,
                            int64_t* end_ns) {
  const char* name_end = ScanFrameName(name, limit, max_string_bytes);
  if (name_end == nullptr) return nullptr;
  int64_t ts_ns = 0;
  int64_t dur_ns = 0;
  return FrameEnd(
      MatchFrameFields(name_end + 1, limit, &ts_ns, &dur_ns, nullptr), ts_ns,
      dur_ns, start_ns, end_ns);
}

const char* PlainFrameFilter::Match(const char* name, const char* limit,
                                    uint32_t max_string_bytes,
                                    int64_t* start_ns, int64_t* end_ns,
                                    MatchedBy* by) {
  const char* name_end = ScanFrameName(name, limit, max_string_bytes);
  if (name_end == nullptr) return nullptr;
  const char* const body = name_end + 1;
  int64_t ts_ns = 0;
  int64_t dur_ns = 0;
  *by = MatchedBy::kKeptFrame;
  const char* end = template_.Match(body, limit, &ts_ns, &dur_ns);
  if (end == nullptr) {
    *by = MatchedBy::kLayout;
    end = layout_.Match(body, limit, &ts_ns, &dur_ns, &values_);
    if (end != nullptr) template_.Learn(body, values_);
  }
  if (end == nullptr) {
    *by = MatchedBy::kFields;
    // Another layout (or none yet): matched field by field, and learnt.
    end = MatchFrameFields(body, limit, &ts_ns, &dur_ns, &candidate_);
    if (end == nullptr) return nullptr;
    std::swap(layout_, candidate_);
  }
  return FrameEnd(end, ts_ns, dur_ns, start_ns, end_ns);
}

bool PlainFrameFilter::Applies(const ReaderLimits& limits) {
  // One pass checks the length of a frame's "ph" and "cat" too; the filter
  // checks only its name's, so the limit must pass "python_function".
  return !limits.keep_python_frames && limits.max_depth > kFrameDepth &&
         limits.max_string_bytes >= kFrameCategory.size();
}

bool PlainFrameFilter::Filter(const char* text, size_t start, size_t end,
                              const ReaderLimits& limits) {
  size_ = 0;
  seams_.clear();
  frames_ = 0;
  frames_by_layout_ = 0;
  frames_like_kept_ = 0;
  extent_ = FrameExtent();
  // At least a huge page: one fault, where a window's worth of small pages
  // was a thousand faults of a cold diff.
  if (!buffer_
           .Grow(std::max(end + 1 - start + kJsonPadding, base::kHugePageBytes),
                 0)
           .ok()) {
    return false;
  }
  char* const out = buffer_.data();
  const auto append = [&](const char* from, const char* to) {
    const auto n = static_cast<size_t>(to - from);
    std::memcpy(out + size_, from, n);
    size_ += n;
  };
  const char* const first = text + start;  // the part's '['
  const char* const last = text + end;     // its ']'
  const char* copied = first;    // what lies before it is in `out` or left out
  const char* next = first + 1;  // where the next frame is looked for
  // The '{' of a frame known to follow the last one's separator (Kineto's
  // spelling between two frames), or nullptr.
  const char* known_frame = nullptr;
  while (next < last) {
    const char* found = nullptr;
    const char* object = nullptr;
    if (known_frame != nullptr) {
      // Its '{' follows a ',' that follows the frame before it.
      object = known_frame;
      found = object + (kFrameSeparator.size() - kFrameSeparator.find('{') -
                        kFrameStart.size());
      known_frame = nullptr;
      next = found + kFrameStart.size();
    } else {
      // Most elements are frames: the one at `next` is tried before a
      // search.
      if (const char* element = SkipSpace(next, last);
          element < last && *element == '{') {
        const char* inside = SkipSpace(element + 1, last);
        if (ScanLiteral(inside, last, kFrameStart) != nullptr) found = inside;
      }
      if (found == nullptr) {
        found = static_cast<const char*>(
            memmem(next, static_cast<size_t>(last - next), kFrameStart.data(),
                   kFrameStart.size()));
        if (found == nullptr) break;
      }
      next = found + kFrameStart.size();
      object = found - 1;
      while (object > first && IsJsonSpace(*object)) --object;
      const char* before = object - 1;
      while (before > first && IsJsonSpace(*before)) --before;
      if (*object != '{' || (*before != ',' && before != first)) continue;
    }
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    MatchedBy by = MatchedBy::kFields;
    const char* after =
        Match(next, last, limits.max_string_bytes, &start_ns, &end_ns, &by);
    if (after == nullptr) continue;
    const char* separator = SkipSpace(after, last);
    if (separator == last) {
      // The part's last element: out with the separator before it, unless
      // no element comes before that (a comma after the '[' fails one pass).
      append(copied, object);
      copied = object;
      size_t kept = size_;
      while (kept > 1 && IsJsonSpace(out[kept - 1])) --kept;
      if (out[kept - 1] == ',') {
        size_t element = kept - 1;
        while (element > 1 && IsJsonSpace(out[element - 1])) --element;
        if (out[element - 1] == '[') {
          next = after;
          continue;
        }
        kept -= 1;
      }
      size_ = kept;
      while (!seams_.empty() && seams_.back() >= size_) seams_.pop_back();
      copied = last;
    } else {
      const char* following = nullptr;
      if (static_cast<size_t>(last - after) >= kFrameSeparator.size() &&
          SameBytes(after, kFrameSeparator.data(), kFrameSeparator.size())) {
        // Another frame, as Kineto spells the next: its '{' and the start
        // of its name are known, and looked for no more (5% of the xDiT
        // trace's read went to finding them).
        following = after + kFrameSeparator.find('{');
        known_frame = following;
      } else {
        following = *separator == ',' ? SkipSpace(separator + 1, last) : last;
      }
      if (following == last || *following != '{') {
        next = after;
        continue;
      }
      // Out with the separator after it; the next element must start an
      // event where it now starts.
      append(copied, object);
      if (seams_.empty() || seams_.back() != size_)
        seams_.push_back(static_cast<uint32_t>(size_));
      copied = following;
      next = following;
    }
    ++frames_;
    frames_by_layout_ += by != MatchedBy::kFields ? 1 : 0;
    frames_like_kept_ += by == MatchedBy::kKeptFrame ? 1 : 0;
    extent_.Add(start_ns, end_ns);
  }
  append(copied, last + 1);
  std::memset(out + size_, ' ', kJsonPadding);
  return true;
}

}  // namespace profdiff::trace
