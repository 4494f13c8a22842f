// Exact conversion between Chrome-trace microsecond decimals ("1234.567") and
// integer nanoseconds, never through a double (docs/semantics.md §1).
#ifndef PROFDIFF_TRACE_DECIMAL_TIME_H_
#define PROFDIFF_TRACE_DECIMAL_TIME_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace profdiff::trace {

// Parses a JSON number of microseconds (optional sign, digits, optional
// fraction, optional exponent) into nanoseconds. Digits past the nanosecond are
// rounded half away from zero. Returns false (leaving *ns unchanged) for
// anything that is not such a number or that does not fit in int64 nanoseconds.
bool ParseMicrosAsNanos(std::string_view text, int64_t* ns);

// Formats nanoseconds as microseconds with exactly three fraction digits
// ("1234.567"), as Kineto writes them; appends to `out`.
void AppendNanosAsMicros(int64_t ns, std::string& out);

}  // namespace profdiff::trace

#endif  // PROFDIFF_TRACE_DECIMAL_TIME_H_
