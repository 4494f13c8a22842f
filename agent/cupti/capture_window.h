// When the injection library captures: PROFDIFF_CAPTURE parsed, and the window
// it opens and closes as steps, cudaProfilerStart/Stop calls and time go by.
//
// Design:
// 1. "always" (the default): from injection to exit. "seconds:D" or
// "seconds:S-E": D seconds
//    from injection, or from S to E seconds after it. "steps:A-B" (or
//    "steps:N"): from the start of step A to the end of step B.
// 2. Steps are counted by "ProfilerStep#N" NVTX ranges (N as named). A program
// without them
//    marks steps with cudaProfilerStart/Stop: the k-th Start (from 0) begins
//    step k and a Stop ends it. The first kind of marker seen is the one
//    counted, so the two never mix.
// 3. A window opens once and closes once; times are CUPTI nanoseconds. The
// owner serialises
//    calls (not thread-safe).
#ifndef PROFDIFF_AGENT_CUPTI_CAPTURE_WINDOW_H_
#define PROFDIFF_AGENT_CUPTI_CAPTURE_WINDOW_H_

#include <cstdint>
#include <string>
#include <string_view>

#include <absl/status/statusor.h>

namespace profdiff::agent::cupti {

enum class CaptureMode { kAlways, kSeconds, kSteps };

struct CaptureSpec {
  CaptureMode mode = CaptureMode::kAlways;
  int64_t first = 0;  // kSteps: first step; kSeconds: seconds after injection
  int64_t last = 0;   // kSteps: last step (inclusive); kSeconds: end, seconds
                      // after injection
};

// Parses PROFDIFF_CAPTURE. InvalidArgument naming the variable, the text and
// the grammar for anything else (a reversed range, a negative number,
// seconds:0).
absl::StatusOr<CaptureSpec> ParseCaptureSpec(std::string_view text);

// Prints `spec` as ParseCaptureSpec reads it ("steps:10-20").
std::string CaptureSpecText(const CaptureSpec& spec);

class CaptureWindow {
 public:
  enum class State { kWaiting, kOpen, kClosed };

  CaptureWindow(CaptureSpec spec, uint64_t injected_ns);

  // A "ProfilerStep#N" range began or ended at t_ns.
  void OnStepRangeStart(int64_t step, uint64_t t_ns);
  void OnStepRangeEnd(int64_t step, uint64_t t_ns);
  // cudaProfilerStart / cudaProfilerStop was called at t_ns.
  void OnProfilerStart(uint64_t t_ns);
  void OnProfilerStop(uint64_t t_ns);
  // The clock read t_ns: opens and closes seconds windows.
  void OnTime(uint64_t t_ns);
  // The process is exiting at t_ns: an open window closes there.
  void OnExit(uint64_t t_ns);

  State state() const { return state_; }
  // Valid once open: [begin_ns, end_ns), end_ns = UINT64_MAX while open.
  uint64_t begin_ns() const { return begin_ns_; }
  uint64_t end_ns() const { return end_ns_; }

 private:
  enum class StepSource { kUnknown, kRanges, kProfilerApi };

  void StepStarted(int64_t step, uint64_t t_ns);
  void StepEnded(int64_t step, uint64_t t_ns);
  void Open(uint64_t t_ns);
  void Close(uint64_t t_ns);

  CaptureSpec spec_;
  uint64_t injected_ns_;
  State state_ = State::kWaiting;
  uint64_t begin_ns_ = 0;
  uint64_t end_ns_ = UINT64_MAX;
  StepSource source_ = StepSource::kUnknown;
  int64_t profiler_starts_ = 0;  // cudaProfilerStart calls seen
};

}  // namespace profdiff::agent::cupti

#endif  // PROFDIFF_AGENT_CUPTI_CAPTURE_WINDOW_H_
