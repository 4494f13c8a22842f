// Exact conversion between Chrome-trace microsecond decimals ("1234.567") and
// integer nanoseconds, never through a double (docs/semantics.md §1).
#ifndef PROFDIFF_TRACE_DECIMAL_TIME_H_
#define PROFDIFF_TRACE_DECIMAL_TIME_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "trace/json_text.h"

namespace profdiff::trace {

// What Kineto writes: up to 15 integer digits, then nothing or '.' and exactly
// 3 digits. The value is exact (int * 1000 + fraction) and within int64, so no
// rounding or range check is due. False for anything else. Inline: two of
// every event's fields are such times.
inline bool ParseKinetoMicros(std::string_view text, int64_t* ns) {
  const size_t n = text.size();
  const size_t integer_digits = n >= 4 && text[n - 4] == '.' ? n - 4 : n;
  if (integer_digits == 0 || integer_digits > 15) return false;
  // The leading digits one at a time, the last eight of a long integer part
  // (a timestamp's 13) at once.
  const size_t single_digits =
      integer_digits >= 8 ? integer_digits - 8 : integer_digits;
  uint64_t value = 0;
  for (size_t i = 0; i < single_digits; ++i) {
    const unsigned digit = static_cast<unsigned char>(text[i]) - '0';
    if (digit > 9) return false;
    value = value * 10 + digit;
  }
  if (single_digits != integer_digits) {
    uint32_t eight;
    if (!EightDigits(text.data() + single_digits, &eight)) return false;
    value = value * 100000000 + eight;
  }
  uint64_t fraction = 0;
  for (size_t i = integer_digits + 1; i < n; ++i) {
    const unsigned digit = static_cast<unsigned char>(text[i]) - '0';
    if (digit > 9) return false;
    fraction = fraction * 10 + digit;
  }
  *ns = static_cast<int64_t>(value * 1000 + fraction);
  return true;
}

// ParseMicrosAsNanos for any other spelling.
bool ParseAnyMicrosAsNanos(std::string_view text, int64_t* ns);

// Parses a JSON number of microseconds (optional sign, digits, optional
// fraction, optional exponent) into nanoseconds. Digits past the nanosecond are
// rounded half away from zero. Returns false (leaving *ns unchanged) for
// anything that is not such a number or that does not fit in int64 nanoseconds.
inline bool ParseMicrosAsNanos(std::string_view text, int64_t* ns) {
  return ParseKinetoMicros(text, ns) || ParseAnyMicrosAsNanos(text, ns);
}

// Formats nanoseconds as microseconds with exactly three fraction digits
// ("1234.567"), as Kineto writes them; appends to `out`.
void AppendNanosAsMicros(int64_t ns, std::string& out);

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_DECIMAL_TIME_H_
