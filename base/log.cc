#include "base/log.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include <absl/time/clock.h>
#include <absl/time/time.h>

namespace profdiff::base {
namespace {
std::atomic<int> verbosity_level{0};

char SeverityLetter(LogSeverity severity) {
  switch (severity) {
    case LogSeverity::kInfo: return 'I';
    case LogSeverity::kWarning: return 'W';
    case LogSeverity::kError: return 'E';
    case LogSeverity::kFatal: return 'F';
  }
  return '?';
}
}  // namespace

void LogLine(LogSeverity severity, std::string_view file, int line, std::string_view message) {
  const size_t slash = file.rfind('/');
  // Keep "folder/file.cc": enough to find the line, short enough to read.
  if (slash != std::string_view::npos && slash > 0) {
    const size_t prev = file.rfind('/', slash - 1);
    if (prev != std::string_view::npos) file.remove_prefix(prev + 1);
  }
  absl::FPrintF(stderr, "%c %s %s:%d] %s\n", SeverityLetter(severity),
                absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone()), file,
                line, message);
  if (severity == LogSeverity::kFatal) std::abort();
}

int VerbosityLevel() { return verbosity_level.load(std::memory_order_relaxed); }
void SetVerbosityLevel(int level) { verbosity_level.store(level, std::memory_order_relaxed); }

}  // namespace profdiff::base
