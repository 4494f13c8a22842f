// When the injection library captures: PROFDIFF_CAPTURE parsed, and the window
// it opens and closes as steps, cudaProfilerStart/Stop calls and time go by,
// including the windows the node's agent orders (`profdiff capture`).
//
// Design:
// 1. "always" (the default): from injection to exit. "seconds:D" or
//    "seconds:S-E": D seconds from injection, or from S to E seconds after
//    it. "steps:A-B" (or "steps:N"): from the start of step A to the end of
//    step B. "on-demand": nothing until the agent orders a window.
// 2. Steps are counted by "ProfilerStep#N" NVTX ranges (N as named). A
//    program without them marks steps with cudaProfilerStart/Stop: the k-th
//    Start (from 0) begins step k and a Stop ends it. The first kind of
//    marker seen is the one counted, so the two never mix.
// 3. A window opens once and closes once; times are CUPTI nanoseconds. Once
//    the window is closed (or in "on-demand" before any), Arm starts another:
//    N steps from the next step to start (or from step K), or a duration from
//    now. A window the agent ordered that has not closed by its deadline
//    expires. The owner serialises calls (not thread-safe).
#ifndef PROFDIFF_AGENT_CUPTI_CAPTURE_WINDOW_H_
#define PROFDIFF_AGENT_CUPTI_CAPTURE_WINDOW_H_

#include <cstdint>
#include <string>
#include <string_view>

#include <absl/status/status.h>
#include <absl/status/statusor.h>

namespace profdiff::agent::cupti {

enum class CaptureMode { kAlways, kSeconds, kSteps, kOnDemand };

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

// A window the agent orders: `steps` steps from step `start_at_step` (-1: the
// next step to start), or, when steps is 0, `duration_ns` from the moment it
// is armed.
struct OrderedWindow {
  int64_t steps = 0;
  int64_t start_at_step = -1;
  uint64_t duration_ns = 0;
};

// How far ahead of the step a process is at an ordered window may start: a
// capture waiting for step 2^62 would hold the process (and its job) busy
// until its deadline. The aggregator refuses such orders too
// (aggregator/capture_coordinator.cc).
inline constexpr int64_t kMaxStepsAhead = 100'000;

class CaptureWindow {
 public:
  // kIdle: no window asked for ("on-demand" before an order).
  enum class State { kIdle, kWaiting, kOpen, kClosed };

  CaptureWindow(CaptureSpec spec, uint64_t injected_ns);

  // A "ProfilerStep#N" range began or ended at t_ns.
  void OnStepRangeStart(int64_t step, uint64_t t_ns);
  void OnStepRangeEnd(int64_t step, uint64_t t_ns);
  // cudaProfilerStart / cudaProfilerStop was called at t_ns.
  void OnProfilerStart(uint64_t t_ns);
  void OnProfilerStop(uint64_t t_ns);
  // The clock read t_ns: opens and closes seconds and duration windows.
  void OnTime(uint64_t t_ns);
  // The process is exiting at t_ns: an open window closes there.
  void OnExit(uint64_t t_ns);

  // Starts `window` at t_ns (design note 3). FailedPrecondition, saying what
  // is being captured, while a window waits or is open; InvalidArgument
  // without steps or a duration; FailedPrecondition when step
  // `start_at_step` has already started, or is more than kMaxStepsAhead
  // after the step the process is at.
  absl::Status Arm(const OrderedWindow& window, uint64_t t_ns);
  // An ordered window's deadline passed at t_ns: one that never opened goes
  // back to idle, an open one closes there.
  void Expire(uint64_t t_ns);

  State state() const { return state_; }
  // The last ProfilerStep number that started; -1 before any.
  int64_t last_step_started() const { return last_step_started_; }
  // Valid once open: [begin_ns, end_ns), end_ns = UINT64_MAX while open.
  uint64_t begin_ns() const { return begin_ns_; }
  uint64_t end_ns() const { return end_ns_; }
  // What the window is ("steps:10-20", "next 5 steps", "3000 ms").
  std::string Describe() const;

 private:
  enum class StepSource { kUnknown, kRanges, kProfilerApi };
  // kSteps: the first step is the next one to start.
  static constexpr int64_t kNextStep = -1;

  void StepStarted(int64_t step, uint64_t t_ns);
  void StepEnded(int64_t step, uint64_t t_ns);
  void Open(uint64_t t_ns);
  void Close(uint64_t t_ns);

  CaptureSpec spec_;
  // kSeconds: [timed_begin_ns_, timed_end_ns_) in CUPTI time.
  uint64_t timed_begin_ns_ = 0;
  uint64_t timed_end_ns_ = 0;
  int64_t next_steps_ = 0;  // spec_.first == kNextStep: how many
  State state_ = State::kWaiting;
  uint64_t begin_ns_ = 0;
  uint64_t end_ns_ = UINT64_MAX;
  StepSource source_ = StepSource::kUnknown;
  int64_t profiler_starts_ = 0;  // cudaProfilerStart calls seen
  int64_t last_step_started_ = -1;
};

}  // namespace profdiff::agent::cupti

#endif  // PROFDIFF_AGENT_CUPTI_CAPTURE_WINDOW_H_
