#include "differ/sentence_parts.h"

#include <cmath>

#include <absl/strings/str_format.h>

#include "base/str_cat.h"
#include "differ/kernel_names.h"

namespace profdiff::differ {
namespace {

std::string Magnitude(double us) {
  const double a = std::abs(us);
  if (a >= 1e6) return absl::StrFormat("%.2f s", a / 1e6);
  if (a >= 1e3) return absl::StrFormat("%.1f ms", a / 1e3);
  if (a >= 10) return absl::StrFormat("%.0f us", a);
  return absl::StrFormat("%.1f us", a);
}

}  // namespace

std::string Duration(double us) { return Magnitude(us); }

std::string SignedDuration(double us) {
  if (us == 0) return "0 us";
  return (us > 0 ? "+" : "-") + Magnitude(us);
}

std::string ChangePercent(double baseline, double experimental) {
  if (baseline == 0) return experimental == 0 ? "0%" : "new";
  if (experimental == 0) return "gone";
  if (experimental == baseline) return "0%";
  const double pct = (experimental - baseline) / std::abs(baseline) * 100;
  if (std::abs(pct) >= 100) return absl::StrFormat("%+.0f%%", pct);
  return absl::StrFormat("%+.1f%%", pct);
}

std::string Share(double fraction) {
  const double pct = fraction * 100;
  if (std::abs(pct) < 1 && pct != 0) return "<1%";
  return absl::StrFormat("%.0f%%", pct);
}

std::string Bytes(double bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  const double a = std::abs(bytes);
  const char* sign = bytes < 0 ? "-" : "";
  if (a >= 1024 * kMiB)
    return absl::StrFormat("%s%.2f GiB", sign, a / (1024 * kMiB));
  return absl::StrFormat("%s%.1f MiB", sign, a / kMiB);
}

std::string Bandwidth(double gbps) {
  return absl::StrFormat("%.3g GB/s", gbps);
}

std::string ShortName(std::string_view name, size_t max) {
  if (name.starts_with("void ")) name.remove_prefix(5);
  // The parameter list: the last top-level "(...)".
  if (name.ends_with(')')) {
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
      if (name[i] == ')') ++depth;
      if (name[i] == '(' && --depth == 0) {
        if (i > 0) name = name.substr(0, i);
        break;
      }
    }
  }
  // Namespaces: up to the last "::" outside template arguments.
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i + 1 < name.size(); ++i) {
    if (name[i] == '<' || name[i] == '(') ++depth;
    if ((name[i] == '>' || name[i] == ')') && depth > 0) --depth;
    if (depth == 0 && name[i] == ':' && name[i + 1] == ':') start = i + 2;
  }
  name.remove_prefix(start);
  if (name.size() <= max) return std::string(name);
  // Too long still: its template arguments give way first, as in the tables.
  return ShortenKernelName(name, max);
}

std::string NameList(const std::vector<std::string>& names, int shown) {
  std::string out;
  const int n = static_cast<int>(names.size());
  for (int i = 0; i < n && i < shown; ++i) {
    const bool last = i + 1 == n;
    base::StrAppend(&out, i == 0 ? "" : (last ? " and " : ", "), names[i]);
  }
  if (n > shown) base::StrAppend(&out, " and ", n - shown, " more");
  return out;
}

}  // namespace profdiff::differ
