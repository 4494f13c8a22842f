// The on-demand config the agent's Kineto daemon hands a PyTorch process for a
// capture, in the KEY=VALUE lines kineto's Config reads (libkineto/src/
// Config.cpp) and dynolog's `dyno gputrace` sends (cli/src/commands/
// gputrace.rs), and the trace file that config makes kineto write.
//
// Kineto writes ACTIVITIES_LOG_FILE with "_<pid>" put before ".pt.trace.json",
// in the folder the agent made for that process below
// LOGDIR/profdiff-captures/<run>/ (capture_folder.h), where the watcher uploads
// it as that run.
// Recent kineto accepts an on-demand log file only below
// KINETO_ONDEMAND_TRACE_DIR (default /tmp/): training processes are started
// with it set to the agent's log dir.
#ifndef PROFDIFF_AGENT_KINETO_ON_DEMAND_CONFIG_H_
#define PROFDIFF_AGENT_KINETO_ON_DEMAND_CONFIG_H_

#include <cstdint>
#include <string>
#include <string_view>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

namespace profdiff::agent {

// What a capture asks of every process.
struct KinetoCaptureSpec {
  std::string capture_id;  // a valid run id; kineto's REQUEST_TRACE_ID
  std::string run;         // the run: LOGDIR/profdiff-captures/<run>/
  int32_t steps = 0;       // ACTIVITIES_ITERATIONS; 0: by duration
  absl::Duration duration = absl::ZeroDuration();  // when steps is 0
  int64_t start_at_step = -1;  // PROFILE_START_ITERATION; -1: the next step
};

// A capture's config for one process and the trace file it names.
struct KinetoCaptureConfig {
  std::string config;
  std::string trace_file;
};

// InvalidArgument naming the field when the ids are not [A-Za-z0-9._-]{1,128},
// neither or both of steps and duration are given, steps is negative, or the
// duration is under a millisecond.
absl::Status CheckKinetoCaptureSpec(const KinetoCaptureSpec& spec);

// The config and trace file of `spec` for process `pid` (its own pid, which
// kineto puts in the file name), writing into `folder` (absolute).
KinetoCaptureConfig KinetoOnDemandConfig(const KinetoCaptureSpec& spec,
                                         std::string_view folder, int32_t pid);

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_KINETO_ON_DEMAND_CONFIG_H_
