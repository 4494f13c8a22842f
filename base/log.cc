#include "base/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include <absl/time/clock.h>
#include <absl/time/time.h>

namespace profdiff::base {
namespace {

std::atomic<int>& Verbosity() {
  static std::atomic<int> verbosity{0};
  return verbosity;
}

// "agent/uploader.cc" from "/any/checkout/agent/uploader.cc": the folder names
// the component.
std::string_view ShortFileName(std::string_view file) {
  const size_t last = file.rfind('/');
  if (last == std::string_view::npos || last == 0) return file;
  const size_t before = file.rfind('/', last - 1);
  return before == std::string_view::npos ? file : file.substr(before + 1);
}

}  // namespace

void SetLogVerbosity(int level) {
  Verbosity().store(level, std::memory_order_relaxed);
}
int LogVerbosity() { return Verbosity().load(std::memory_order_relaxed); }

namespace internal {

void WriteLogLine(LogSeverity severity, std::string_view file, int line,
                  std::string_view message) {
  static constexpr char kLetters[] = {'I', 'W', 'E', 'F'};
  const std::string text =
      absl::StrFormat("%c %s %s:%d] %s\n", kLetters[static_cast<int>(severity)],
                      absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(),
                                       absl::UTCTimeZone()),
                      ShortFileName(file), line, message);
  // One fwrite per line, so lines from several threads do not interleave.
  std::fwrite(text.data(), 1, text.size(), stderr);
  if (severity == LogSeverity::kFatal) std::abort();
}

}  // namespace internal
}  // namespace profdiff::base
