// How numbers look in the terminal tables of `show` and `diff`, and in the
// HTML pages.
#ifndef PROFDIFF_BASE_NUMBER_FORMAT_H_
#define PROFDIFF_BASE_NUMBER_FORMAT_H_

#include <string>

#include <absl/strings/str_format.h>

namespace profdiff::base {

inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kBytesPerMiB = 1024.0 * 1024.0;

inline std::string Micros(double us) { return absl::StrFormat("%.1f", us); }
// A count that may be a mean over steps: "12", "2.5".
inline std::string CountText(double n) { return absl::StrFormat("%g", n); }
inline std::string SignedMicros(double us) {
  return absl::StrFormat("%+.1f", us);
}
inline std::string Percent(double part, double whole) {
  return whole > 0 ? absl::StrFormat("%.1f%%", 100.0 * part / whole) : "-";
}
// A delta in percent; "new" where the baseline was 0 and the value appeared.
// Past +10,000% a change reads better as a factor ("x120" rather than
// "+11900.0%").
inline constexpr double kFactorAbovePct = 1e4;

// Bytes as B, KiB or MiB; SignedBytesText with its sign.
inline std::string BytesText(double bytes) {
  const double size = bytes < 0 ? -bytes : bytes;
  const char* sign = bytes < 0 ? "-" : "";
  if (size >= kBytesPerMiB)
    return absl::StrFormat("%s%.1f MiB", sign, size / kBytesPerMiB);
  if (size >= 1024) return absl::StrFormat("%s%.1f KiB", sign, size / 1024);
  return absl::StrFormat("%s%.0f B", sign, size);
}
inline std::string SignedBytesText(double bytes) {
  return bytes > 0 ? "+" + BytesText(bytes) : BytesText(bytes);
}
inline std::string SignedPercent(double pct, double baseline,
                                 double experimental) {
  if (baseline == 0) return experimental == 0 ? "0.0%" : "new";
  if (pct > kFactorAbovePct) return absl::StrFormat("x%.0f", 1 + pct / 100);
  return absl::StrFormat("%+.1f%%", pct);
}
inline double DeltaPercent(double a, double b) {
  return a == 0 ? 0 : (b - a) / a * 100.0;
}
inline std::string Mebibytes(double bytes) {
  return absl::StrFormat("%.1f", bytes / kBytesPerMiB);
}

}  // namespace profdiff::base

#endif  // PROFDIFF_BASE_NUMBER_FORMAT_H_
