#include "agent/cupti/capture_window.h"

#include <algorithm>

#include "base/parse_int.h"
#include "base/str_cat.h"

namespace profdiff::agent::cupti {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

absl::Status BadSpec(std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(
      base::StrCat("PROFDIFF_CAPTURE=\"", text, "\": ", why,
                   "; expected always, on-demand, seconds:D, seconds:S-E, "
                   "steps:N or steps:A-B"));
}

// "N" or "A-B" into first/last, both >= 0 and first <= last.
absl::Status ParseRange(std::string_view text, std::string_view range,
                        CaptureSpec& spec) {
  const size_t dash = range.find('-');
  if (!base::ParseInt64(range.substr(0, dash), spec.first) || spec.first < 0) {
    return BadSpec(text, "not a non-negative integer before '-'");
  }
  spec.last = spec.first;
  if (dash != std::string_view::npos &&
      (!base::ParseInt64(range.substr(dash + 1), spec.last) ||
       spec.last < spec.first)) {
    return BadSpec(text, "the end is not an integer at or after the start");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CaptureSpec> ParseCaptureSpec(std::string_view text) {
  CaptureSpec spec;
  if (text.empty() || text == "always") return spec;
  if (text == "on-demand") {
    spec.mode = CaptureMode::kOnDemand;
    return spec;
  }
  if (text.starts_with("steps:")) {
    spec.mode = CaptureMode::kSteps;
    if (absl::Status s = ParseRange(text, text.substr(6), spec); !s.ok())
      return s;
    return spec;
  }
  if (text.starts_with("seconds:")) {
    spec.mode = CaptureMode::kSeconds;
    const std::string_view range = text.substr(8);
    if (absl::Status s = ParseRange(text, range, spec); !s.ok()) return s;
    if (range.find('-') ==
        std::string_view::npos) {  // "seconds:D": from 0 for D seconds
      spec.last = spec.first;
      spec.first = 0;
    }
    if (spec.last == spec.first)
      return BadSpec(text, "the window lasts 0 seconds");
    return spec;
  }
  return BadSpec(text, "unknown mode");
}

std::string CaptureSpecText(const CaptureSpec& spec) {
  switch (spec.mode) {
    case CaptureMode::kAlways:
      return "always";
    case CaptureMode::kSeconds:
      return base::StrCat("seconds:", spec.first, "-", spec.last);
    case CaptureMode::kSteps:
      return base::StrCat("steps:", spec.first, "-", spec.last);
    case CaptureMode::kOnDemand:
      return "on-demand";
  }
  return "always";
}

CaptureWindow::CaptureWindow(CaptureSpec spec, uint64_t injected_ns)
    : spec_(spec),
      timed_begin_ns_(injected_ns +
                      static_cast<uint64_t>(spec.first * kNsPerSecond)),
      timed_end_ns_(injected_ns +
                    static_cast<uint64_t>(spec.last * kNsPerSecond)) {
  if (spec_.mode == CaptureMode::kAlways) Open(injected_ns);
  if (spec_.mode == CaptureMode::kOnDemand) state_ = State::kIdle;
}

void CaptureWindow::Open(uint64_t t_ns) {
  if (state_ != State::kWaiting) return;
  state_ = State::kOpen;
  begin_ns_ = t_ns;
}

void CaptureWindow::Close(uint64_t t_ns) {
  if (state_ != State::kOpen) return;
  state_ = State::kClosed;
  end_ns_ = t_ns < begin_ns_ ? begin_ns_ : t_ns;
}

void CaptureWindow::StepStarted(int64_t step, uint64_t t_ns) {
  last_step_started_ = step;
  if (spec_.mode != CaptureMode::kSteps || state_ == State::kClosed) return;
  if (spec_.first == kNextStep && state_ == State::kWaiting) {
    spec_.first = step;
    spec_.last = step + next_steps_ - 1;
  }
  if (step >= spec_.first && step <= spec_.last) Open(t_ns);
  // A step past the window that starts while it is open (its end was never
  // seen) closes it.
  if (step > spec_.last) Close(t_ns);
}

void CaptureWindow::StepEnded(int64_t step, uint64_t t_ns) {
  if (spec_.mode == CaptureMode::kSteps && step >= spec_.last) Close(t_ns);
}

void CaptureWindow::OnStepRangeStart(int64_t step, uint64_t t_ns) {
  if (source_ == StepSource::kUnknown) source_ = StepSource::kRanges;
  if (source_ == StepSource::kRanges) StepStarted(step, t_ns);
}

void CaptureWindow::OnStepRangeEnd(int64_t step, uint64_t t_ns) {
  if (source_ == StepSource::kRanges) StepEnded(step, t_ns);
}

void CaptureWindow::OnProfilerStart(uint64_t t_ns) {
  if (source_ == StepSource::kUnknown) source_ = StepSource::kProfilerApi;
  if (source_ == StepSource::kProfilerApi)
    StepStarted(profiler_starts_++, t_ns);
}

void CaptureWindow::OnProfilerStop(uint64_t t_ns) {
  if (source_ == StepSource::kProfilerApi && profiler_starts_ > 0) {
    StepEnded(profiler_starts_ - 1, t_ns);
  }
}

void CaptureWindow::OnTime(uint64_t t_ns) {
  if (spec_.mode != CaptureMode::kSeconds) return;
  if (state_ == State::kWaiting && t_ns >= timed_begin_ns_)
    Open(timed_begin_ns_);
  if (state_ == State::kOpen && t_ns >= timed_end_ns_) Close(timed_end_ns_);
}

void CaptureWindow::OnExit(uint64_t t_ns) {
  OnTime(t_ns);
  Close(t_ns);
}

absl::Status CaptureWindow::Arm(const OrderedWindow& window, uint64_t t_ns) {
  if (state_ == State::kWaiting || state_ == State::kOpen) {
    return absl::FailedPreconditionError(
        base::StrCat("already capturing (", Describe(), ")"));
  }
  if (window.steps <= 0 && window.duration_ns == 0) {
    return absl::InvalidArgumentError(
        "a capture window needs a number of steps or a duration");
  }
  if (window.steps > 0 && window.start_at_step >= 0 &&
      window.start_at_step <= last_step_started_) {
    return absl::FailedPreconditionError(
        base::StrCat("step ", window.start_at_step,
                     " has already started (the process is at step ",
                     last_step_started_, ")"));
  }
  if (window.steps > 0 &&
      window.start_at_step >
          std::max<int64_t>(last_step_started_, 0) + kMaxStepsAhead) {
    return absl::FailedPreconditionError(base::StrCat(
        "step ", window.start_at_step, " is more than ", kMaxStepsAhead,
        " steps after the step the process is at (", last_step_started_, ")"));
  }
  if (window.steps > 0) {
    spec_ = {
        .mode = CaptureMode::kSteps,
        .first = window.start_at_step >= 0 ? window.start_at_step : kNextStep,
        .last = window.start_at_step + window.steps - 1};
    next_steps_ = window.steps;
  } else {
    spec_ = {.mode = CaptureMode::kSeconds};
    timed_begin_ns_ = t_ns;
    timed_end_ns_ = t_ns + window.duration_ns;
  }
  state_ = State::kWaiting;
  begin_ns_ = 0;
  end_ns_ = UINT64_MAX;
  OnTime(t_ns);  // a duration opens now
  return absl::OkStatus();
}

void CaptureWindow::Expire(uint64_t t_ns) {
  if (state_ == State::kWaiting) state_ = State::kIdle;
  Close(t_ns);
}

std::string CaptureWindow::Describe() const {
  switch (spec_.mode) {
    case CaptureMode::kSteps:
      if (spec_.first == kNextStep)
        return base::StrCat("the next ", next_steps_, " steps");
      return base::StrCat("steps ", spec_.first, "-", spec_.last);
    case CaptureMode::kSeconds:
      return base::StrCat((timed_end_ns_ - timed_begin_ns_) / 1'000'000, " ms");
    case CaptureMode::kAlways:
      return "everything, PROFDIFF_CAPTURE=always";
    case CaptureMode::kOnDemand:
      return "nothing";
  }
  return "";
}

}  // namespace profdiff::agent::cupti
