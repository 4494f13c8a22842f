#include "trace/decimal_time.h"

#include <limits>

#include "base/str_cat.h"

namespace profdiff::trace {
namespace {
constexpr int kNanosDigits =
    3;  // microseconds -> nanoseconds: three decimal places
constexpr int kMaxExponent = 30;  // larger exponents cannot fit int64 ns anyway
constexpr int64_t kMaxNs = std::numeric_limits<int64_t>::max();
}  // namespace

bool ParseAnyMicrosAsNanos(std::string_view text, int64_t* ns) {
  size_t i = 0;
  const size_t n = text.size();
  bool negative = false;
  if (i < n && text[i] == '-') {
    negative = true;
    ++i;
  }
  // Collect the significant digits and where the decimal point sits.
  uint64_t mantissa = 0;
  int digits_after_point = 0;
  bool any_digit = false;
  bool overflow = false;
  int round_digit = -1;  // first digit dropped because it is below a nanosecond
  int exponent = 0;
  bool seen_point = false;
  // Digits are accumulated up to 19 significant; more than that cannot be int64
  // ns.
  for (; i < n; ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      any_digit = true;
      if (seen_point) ++digits_after_point;
      if (mantissa > (std::numeric_limits<uint64_t>::max() - 9) / 10) {
        overflow = true;
      } else {
        mantissa = mantissa * 10 + static_cast<uint64_t>(c - '0');
      }
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any_digit || overflow) return false;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (text[i] == '+' || text[i] == '-')) {
      exp_negative = text[i] == '-';
      ++i;
    }
    bool exp_digit = false;
    for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i) {
      exp_digit = true;
      exponent = exponent * 10 + (text[i] - '0');
      if (exponent > 1000) return false;
    }
    if (!exp_digit) return false;
    if (exp_negative) exponent = -exponent;
  }
  if (i != n) return false;
  // value = mantissa * 10^(exponent - digits_after_point) microseconds
  //       = mantissa * 10^(exponent - digits_after_point + 3) nanoseconds.
  int scale = exponent - digits_after_point + kNanosDigits;
  if (scale > kMaxExponent) return false;
  while (scale > 0) {
    if (mantissa > static_cast<uint64_t>(kMaxNs) / 10) return false;
    mantissa *= 10;
    --scale;
  }
  while (scale < 0) {
    round_digit = static_cast<int>(mantissa % 10);
    mantissa /= 10;
    ++scale;
    if (scale < 0 && mantissa == 0) break;
  }
  if (scale < 0) {  // so many fraction digits that nothing is left: below half
                    // a nanosecond
    mantissa = 0;
    round_digit = 0;
  }
  if (round_digit >= 5) ++mantissa;
  if (mantissa > static_cast<uint64_t>(kMaxNs)) return false;
  const int64_t value = static_cast<int64_t>(mantissa);
  *ns = negative ? -value : value;
  return true;
}

void AppendNanosAsMicros(int64_t ns, std::string& out) {
  uint64_t magnitude =
      ns < 0 ? static_cast<uint64_t>(-(ns + 1)) + 1 : static_cast<uint64_t>(ns);
  if (ns < 0) out.push_back('-');
  const uint64_t micros = magnitude / 1000;
  const uint64_t nanos = magnitude % 1000;
  base::StrAppend(&out, micros, ".");
  out.push_back(static_cast<char>('0' + nanos / 100));
  out.push_back(static_cast<char>('0' + (nanos / 10) % 10));
  out.push_back(static_cast<char>('0' + nanos % 10));
}

}  // namespace profdiff::trace
