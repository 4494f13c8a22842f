// The agent as Kineto's daemon (--kineto-daemon): it serves dynolog's IPC
// fabric endpoint on this node, so PyTorch processes started with
// KINETO_USE_DAEMON=1 register with it and poll it for on-demand configs, and
// a capture hands each process of a job a config whose trace lands in the
// agent's log dir (kineto_on_demand_config.h), where the watcher uploads it.
//
// Design:
// 1. One thread owns the socket: it answers each datagram as dynolog's
//    IPCMonitor does (kineto_ipc_wire.h), at the address it came from. A
//    datagram that is not a libkineto message, or whose pid is not its
//    sender's (peer_process.h: the abstract socket has no other access
//    control), or that a bound of the registry refuses, is logged (the first
//    ten of each kind, then every hundredth), counted, and answered with
//    nothing, as dynolog does; the others are unaffected.
// 2. The registry (kineto_process_registry.h) is under a mutex; Capture and
//    Processes may be called from any thread. Reading a process's environment,
//    making capture folders and checking for trace files happen outside it.
// 3. Between datagrams, at most every `settle_interval`, captures whose trace
//    file is there (or whose deadline passed) end, and processes silent for a
//    minute are forgotten.
// 4. Each armed process writes into a folder of its own (capture_folder.h);
//    what was armed is kept by ArmedCaptures, and a restarted daemon restores
//    it (Restore), so a process is never handed a capture's config twice.
#ifndef PROFDIFF_AGENT_KINETO_DAEMON_H_
#define PROFDIFF_AGENT_KINETO_DAEMON_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/status/statusor.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

#include "agent/armed_captures.h"
#include "agent/kineto_ipc_wire.h"
#include "agent/kineto_on_demand_config.h"
#include "agent/kineto_process_registry.h"
#include "agent/unix_datagram_socket.h"

namespace profdiff::agent {

struct KinetoDaemonOptions {
  std::string name = "dynolog";  // the fabric endpoint kineto sends to
  std::string socket_dir;        // KINETO_IPC_SOCKET_DIR's value; "" = abstract
  std::string logdir;            // absolute; captures' traces go below it
  absl::Duration settle_interval = absl::Milliseconds(200);
  // What was armed, kept across restarts (not owned; outlives the daemon).
  ArmedCaptures* armed = nullptr;
};

// Counters since start, for logs and tests.
struct KinetoDaemonCounts {
  int64_t registrations = 0;
  int64_t polls = 0;
  int64_t configs_sent = 0;
  int64_t refused = 0;       // datagrams that were not libkineto messages
  int64_t impostors = 0;     // messages for a pid that is not their sender's
  int64_t over_limit = 0;    // new processes past a registry bound
  int64_t invalid_jobs = 0;  // environments whose job id is not an id
};

// What a capture asked of the daemon's processes: the answer's part, and each
// process armed (for ArmedCaptures).
struct KinetoArming {
  CaptureArming arming;
  std::vector<v1::ArmedProcess> processes;
};

class KinetoDaemon {
 public:
  // Binds the endpoint, restores the running captures `options.armed` keeps,
  // and starts serving. Errors: UnixDatagramSocket::Bind's (Unavailable when
  // dynolog or another agent already serves the name); InvalidArgument for a
  // log dir that is not absolute, or no ArmedCaptures.
  static absl::StatusOr<std::unique_ptr<KinetoDaemon>> Start(
      KinetoDaemonOptions options);
  ~KinetoDaemon();
  KinetoDaemon(const KinetoDaemon&) = delete;
  KinetoDaemon& operator=(const KinetoDaemon&) = delete;

  // Stops serving and joins; later calls do nothing.
  void Stop();

  // Arms every process of `job` ("" = every process) for `spec`, each in a
  // folder of its own (design note 4), each capture ending when its trace is
  // written or at `deadline`. A process whose folder cannot be made, or that
  // still holds a cancelled capture's request, is named in the arming's
  // errors. Errors: CheckKinetoCaptureSpec's.
  absl::StatusOr<KinetoArming> Capture(std::string_view job,
                                       const KinetoCaptureSpec& spec,
                                       absl::Time deadline)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Cancels capture `capture_id` (KinetoProcessRegistry::Cancel): a config
  // not yet taken is never handed out. Returns the host pids freed.
  std::vector<int32_t> Cancel(std::string_view capture_id)
      ABSL_LOCKS_EXCLUDED(mu_);
  std::vector<KinetoProcess> Processes() const ABSL_LOCKS_EXCLUDED(mu_);
  // Waits until no process is capturing, up to `timeout`; false on timeout.
  bool AwaitCapturesEnded(absl::Duration timeout) const
      ABSL_LOCKS_EXCLUDED(mu_);
  KinetoDaemonCounts Counts() const;

  // Use Start().
  KinetoDaemon(KinetoDaemonOptions options, UnixDatagramSocket socket);

 private:
  void Serve(const std::stop_token& stop);
  void Answer(const UnixDatagramSocket::Datagram& datagram);
  // The sender of `message`, checked against the kernel's word on it, with
  // its job; PermissionDenied/InvalidArgument for an impostor (loop thread).
  absl::StatusOr<KinetoSender> SenderOf(
      const KinetoMessage& message, const std::optional<PeerCredentials>& peer);
  void Settle();

  const KinetoDaemonOptions options_;
  UnixDatagramSocket socket_;  // the loop thread's alone
  mutable absl::Mutex mu_;
  KinetoProcessRegistry registry_ ABSL_GUARDED_BY(mu_);
  // Jobs read from environments, by host pid (loop thread).
  absl::flat_hash_map<int32_t, std::string> environment_jobs_;
  absl::Time last_settle_ = absl::InfinitePast();  // loop thread
  std::atomic<int64_t> registrations_{0};
  std::atomic<int64_t> polls_{0};
  std::atomic<int64_t> configs_sent_{0};
  std::atomic<int64_t> refused_{0};
  std::atomic<int64_t> impostors_{0};
  std::atomic<int64_t> over_limit_{0};
  std::atomic<int64_t> invalid_jobs_{0};
  std::jthread thread_;  // last: stopped and joined first
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_KINETO_DAEMON_H_
