// Minimal logging to stderr on absl::FPrintF (STYLE.md §7): no glog, no second flag system.
// One line per message: `I 2026-11-22T03:31:07.123Z file.cc:88] text`.
#ifndef PROFDIFF_BASE_LOG_H_
#define PROFDIFF_BASE_LOG_H_

#include <string_view>

#include <absl/strings/str_format.h>

namespace profdiff::base {

enum class LogSeverity { kInfo, kWarning, kError, kFatal };

// Writes one formatted line to stderr; kFatal aborts afterwards.
void LogLine(LogSeverity severity, std::string_view file, int line, std::string_view message);

// Verbosity for PD_VLOG; set from `--v` in binaries.
int VerbosityLevel();
void SetVerbosityLevel(int level);

}  // namespace profdiff::base

#define PD_LOG_SEVERITY_INFO ::profdiff::base::LogSeverity::kInfo
#define PD_LOG_SEVERITY_WARNING ::profdiff::base::LogSeverity::kWarning
#define PD_LOG_SEVERITY_ERROR ::profdiff::base::LogSeverity::kError

#define PD_LOG(severity, ...)                                                             \
  ::profdiff::base::LogLine(PD_LOG_SEVERITY_##severity, __FILE__, __LINE__,              \
                            ::absl::StrFormat(__VA_ARGS__))

#define PD_VLOG(level, ...)                                           \
  do {                                                                \
    if (::profdiff::base::VerbosityLevel() >= (level)) PD_LOG(INFO, __VA_ARGS__); \
  } while (false)

// Guards programmer errors only; input never reaches a CHECK.
#define PD_CHECK(cond, ...)                                                           \
  do {                                                                                \
    if (!(cond))                                                                      \
      ::profdiff::base::LogLine(::profdiff::base::LogSeverity::kFatal, __FILE__,     \
                                __LINE__, "CHECK failed: " #cond ": " +              \
                                              ::absl::StrFormat(__VA_ARGS__));       \
  } while (false)

#endif  // PROFDIFF_BASE_LOG_H_
