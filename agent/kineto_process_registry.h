// The PyTorch processes registered with the agent's Kineto daemon, and what is
// asked of each: the part of dynolog's LibkinetoConfigManager profdiff needs.
// Not thread-safe; KinetoDaemon holds it under its mutex.
//
// Design:
// 1. A process is the sender the kernel vouches for (peer_process.h): it is
//    keyed by its pid in the agent's namespace (`host_pid`), so two containers'
//    processes that both call themselves pid 7 are two processes, and no one
//    speaks for another. Its job is the job id it sends when not 0, else the
//    one the agent found in its environment, else "0".
// 2. Bounded: at most kMaxKinetoProcesses processes, kMaxKinetoProcessesPerUser
//    of one uid; a new process past either is refused, the known ones are
//    unaffected. Registration is answered in O(log n) from per (job, gpu)
//    counts.
// 3. A capture arms a process with a config; its next poll asking for
//    activities takes it, once. From arming until its trace file is written
//    or the capture's deadline passes the process is capturing, and a second
//    capture leaves it alone and reports it busy.
// 4. A process that has not polled for a minute is forgotten, as dynolog
//    forgets it (kineto polls every second or so while alive), unless it is
//    capturing.
#ifndef PROFDIFF_AGENT_KINETO_PROCESS_REGISTRY_H_
#define PROFDIFF_AGENT_KINETO_PROCESS_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "agent/capture_arming.h"
#include "agent/peer_process.h"

namespace profdiff::agent {

inline constexpr absl::Duration kKinetoKeepAlive = absl::Seconds(60);
// LibkinetoConfigType's activities bit: a poll without it takes no capture.
inline constexpr int32_t kKinetoActivitiesConfig = 2;
// Design note 2. A node runs a few dozen training processes; the bounds keep
// one user's thousands of fake registrations from crowding out the others'
// or the agent's status (each process is a row of it).
inline constexpr int kMaxKinetoProcesses = 4096;
inline constexpr int kMaxKinetoProcessesPerUser = 1024;

// One message's sender, checked, and the job it belongs to: the job id it
// sent when not 0, else the one in its environment, else "" (none known).
struct KinetoSender {
  VerifiedProcess process;
  std::string job;
};

// What one process is asked to capture.
struct KinetoProcessCapture {
  std::string capture_id;
  std::string config;      // "" once a poll took it
  std::string trace_file;  // where kineto writes the capture's trace
  absl::Time deadline;
  // Cancelled after the process took its config: kineto keeps a request it
  // took until the request runs (a newer one is ignored, "another profile
  // request is pending"), so the process stays busy until its trace is
  // written or the deadline passes.
  bool cancelled = false;
};

struct KinetoProcess {
  int32_t host_pid = 0;  // the agent's view; the registry's key
  int32_t pid = 0;       // the process's own (what kineto sends)
  uint32_t uid = 0;
  std::vector<int32_t> ancestors;  // from its last poll
  int32_t gpu = -1;                // from its registration; -1 without one
  std::string job;
  absl::Time first_seen;
  absl::Time last_seen;
  // Set from arming until the capture ends (design note 3).
  KinetoProcessCapture capture;
  bool capturing() const { return !capture.capture_id.empty(); }
};

class KinetoProcessRegistry {
 public:
  // Records `sender`'s registration on `gpu`; returns how many processes of
  // its job are registered on that gpu (the answer dynolog gives).
  // ResourceExhausted naming the bound when `sender` is new and a bound of
  // design note 2 is reached.
  absl::StatusOr<int32_t> Register(const KinetoSender& sender, int32_t gpu,
                                   absl::Time now);
  // Records `sender`'s poll; returns the armed config (and its capture) when
  // the poll asks for activities and one is waiting, else an empty config
  // (design note 3). Errors as Register's.
  struct PollAnswer {
    std::string config;
    std::string capture_id;  // of `config`, when one is handed out
  };
  absl::StatusOr<PollAnswer> Poll(const KinetoSender& sender,
                                  int32_t config_type,
                                  std::vector<int32_t> ancestors,
                                  absl::Time now);

  // The processes of `job` ("" = every process), by host pid: in `armed`
  // those a capture may arm, in `busy` those capturing.
  CaptureArming Select(std::string_view job) const;
  // Arms process `host_pid` with `capture` unless it is gone or capturing:
  // false then.
  bool Arm(int32_t host_pid, KinetoProcessCapture capture);
  // A capture armed before the agent restarted (ArmedCaptures): process
  // `host_pid` is capturing again, known from now on if it was not, and is
  // handed `capture.config` only if that is not "" (not taken yet).
  void Restore(const VerifiedProcess& process, KinetoProcessCapture capture,
               absl::Time now);
  // Cancels capture `capture_id`: a process that has not taken its config
  // gets none and is free at once; one that took it stays busy, marked
  // cancelled (KinetoProcessCapture::cancelled). Returns the host pids freed.
  std::vector<int32_t> Cancel(std::string_view capture_id);

  // Ends the captures whose trace file `written` says is there, or whose
  // deadline has passed; returns the host pids whose capture ended.
  std::vector<int32_t> SettleCaptures(
      absl::Time now,
      const std::function<bool(const std::string& trace_file)>& written);
  // Forgets processes that have not been seen for kKinetoKeepAlive and are
  // not capturing; returns their host pids.
  std::vector<int32_t> ForgetIdle(absl::Time now);

  bool AnyCapturing() const;
  // Every process, by host pid.
  std::vector<KinetoProcess> Processes() const;
  int size() const { return static_cast<int>(processes_.size()); }

 private:
  // The process of `sender`, made when new and the bounds allow.
  absl::StatusOr<KinetoProcess*> Touch(const KinetoSender& sender,
                                       absl::Time now);
  void Count(const KinetoProcess& process, int delta);
  void Erase(std::map<int32_t, KinetoProcess>::iterator it);

  std::map<int32_t, KinetoProcess> processes_;  // by host pid
  std::map<uint32_t, int> per_user_;
  std::map<std::pair<std::string, int32_t>, int32_t> per_job_gpu_;
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_KINETO_PROCESS_REGISTRY_H_
