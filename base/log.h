// One-line logging to stderr for binaries, services and background loops:
//   I 2026-11-22T03:31:07.123Z agent/uploader.cc:88] span done run=r1 worker=3
//   events=81234
// Libraries do not log; they return Status. No glog: the CUPTI injection
// library runs inside processes that already initialise it.
#ifndef PROFDIFF_BASE_LOG_H_
#define PROFDIFF_BASE_LOG_H_

#include <string_view>

#include <absl/strings/str_format.h>

namespace profdiff::base {

enum class LogSeverity { kInfo, kWarning, kError, kFatal };

// Messages from PD_VLOG(level, ...) print when level <= the verbosity (0 by
// default; `--v`).
void SetLogVerbosity(int level);
int LogVerbosity();

namespace internal {

// Writes one line: severity letter, UTC time, file:line, message. kFatal aborts
// after writing.
void WriteLogLine(LogSeverity severity, std::string_view file, int line,
                  std::string_view message);

template <typename... Args>
void Log(LogSeverity severity, std::string_view file, int line,
         const absl::FormatSpec<Args...>& format, const Args&... args) {
  WriteLogLine(severity, file, line, absl::StrFormat(format, args...));
}

}  // namespace internal
}  // namespace profdiff::base

#define PD_LOG_SEVERITY_INFO ::profdiff::base::LogSeverity::kInfo
#define PD_LOG_SEVERITY_WARNING ::profdiff::base::LogSeverity::kWarning
#define PD_LOG_SEVERITY_ERROR ::profdiff::base::LogSeverity::kError

#define PD_LOG(severity, ...)                                           \
  ::profdiff::base::internal::Log(PD_LOG_SEVERITY_##severity, __FILE__, \
                                  __LINE__, __VA_ARGS__)

#define PD_VLOG(level, ...)                                                 \
  do {                                                                      \
    if ((level) <= ::profdiff::base::LogVerbosity()) {                      \
      ::profdiff::base::internal::Log(::profdiff::base::LogSeverity::kInfo, \
                                      __FILE__, __LINE__, __VA_ARGS__);     \
    }                                                                       \
  } while (false)

// Programmer errors only; input never reaches a CHECK.
#define PD_CHECK(condition, ...)                                     \
  do {                                                               \
    if (!(condition)) {                                              \
      ::profdiff::base::internal::Log(                               \
          ::profdiff::base::LogSeverity::kFatal, __FILE__, __LINE__, \
          "CHECK failed: " #condition ": " __VA_ARGS__);             \
    }                                                                \
  } while (false)

#endif  // PROFDIFF_BASE_LOG_H_
