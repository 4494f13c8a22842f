// The PyTorch processes registered with the agent's Kineto daemon, and what is
// asked of each: the part of dynolog's LibkinetoConfigManager profdiff needs.
// Not thread-safe; KinetoDaemon holds it under its mutex.
//
// Design:
// 1. A process is its pid: a registration's pid, a poll's pids[0] (the rest
//    are its ancestors). Its job is the job id it sends when not 0, else the
//    caller's `environment_job` (the agent reads TORCHELASTIC_RUN_ID or
//    SLURM_JOB_ID from /proc/PID/environ), else "0".
// 2. A capture arms a process with a config; its next poll asking for
//    activities takes it, once. From arming until its trace file is written
//    or the capture's deadline passes the process is capturing, and a second
//    capture leaves it alone and reports it busy.
// 3. A process that has not polled for a minute is forgotten, as dynolog
//    forgets it (kineto polls every second or so while alive).
#ifndef PROFDIFF_AGENT_KINETO_PROCESS_REGISTRY_H_
#define PROFDIFF_AGENT_KINETO_PROCESS_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <absl/time/time.h>

#include "agent/capture_arming.h"
#include "agent/kineto_ipc_wire.h"

namespace profdiff::agent {

inline constexpr absl::Duration kKinetoKeepAlive = absl::Seconds(60);
// LibkinetoConfigType's activities bit: a poll without it takes no capture.
inline constexpr int32_t kKinetoActivitiesConfig = 2;

struct KinetoProcess {
  int32_t pid = 0;
  std::vector<int32_t> ancestors;  // from its last poll
  int32_t gpu = -1;                // from its registration; -1 without one
  std::string job;
  absl::Time first_seen;
  absl::Time last_seen;
  // A capture: `capture_id` is set from arming until it ends (design note 2);
  // `config` is cleared when a poll takes it.
  std::string capture_id;
  std::string config;
  std::string trace_file;  // where Kineto writes the capture's trace
  absl::Time capture_deadline;
  bool capturing() const { return !capture_id.empty(); }
};

// A capture's config for one process and the trace file it names.
struct KinetoCaptureConfig {
  std::string config;
  std::string trace_file;
};

class KinetoProcessRegistry {
 public:
  // Records the registration; returns how many processes of its job are
  // registered on its gpu (the answer dynolog gives).
  int32_t Register(const KinetoRegistration& registration,
                   std::string_view environment_job, absl::Time now);
  // Records the poll; returns the armed config when the poll asks for
  // activities and one is waiting, else "" (design note 2).
  std::string Poll(const KinetoPoll& poll, std::string_view environment_job,
                   absl::Time now);
  // True when `pid` is known with a job (so its environment need not be read).
  bool Knows(int32_t pid) const { return processes_.contains(pid); }

  // Arms every process of `job` ("" = every process) that is not capturing
  // with `config_for(process)`, as capture `capture_id` ending at `deadline`.
  CaptureArming Arm(
      std::string_view job, std::string_view capture_id, absl::Time deadline,
      const std::function<KinetoCaptureConfig(const KinetoProcess&)>&
          config_for);
  // Ends the captures whose trace file `written` says is there, or whose
  // deadline has passed; returns the pids whose capture ended.
  std::vector<int32_t> SettleCaptures(
      absl::Time now,
      const std::function<bool(const std::string& trace_file)>& written);
  // Forgets processes that have not been seen for kKinetoKeepAlive; returns
  // their pids.
  std::vector<int32_t> ForgetIdle(absl::Time now);

  bool AnyCapturing() const;
  // Every process, by pid.
  std::vector<KinetoProcess> Processes() const;

 private:
  KinetoProcess& Touch(int32_t pid, int64_t job_id,
                       std::string_view environment_job, absl::Time now);

  std::map<int32_t, KinetoProcess> processes_;
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_KINETO_PROCESS_REGISTRY_H_
