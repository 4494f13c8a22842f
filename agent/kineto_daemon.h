// The agent as Kineto's daemon (--kineto-daemon): it serves dynolog's IPC
// fabric endpoint on this node, so PyTorch processes started with
// KINETO_USE_DAEMON=1 register with it and poll it for on-demand configs, and
// a capture hands each process of a job a config whose trace lands in the
// agent's log dir (kineto_on_demand_config.h), where the watcher uploads it.
//
// Design:
// 1. One thread owns the socket: it answers each datagram as dynolog's
//    IPCMonitor does (kineto_ipc_wire.h), at the address it came from. A
//    datagram that is not a libkineto message is refused, logged and counted,
//    and answered with nothing, as dynolog does; the others are unaffected.
// 2. The registry (kineto_process_registry.h) is under a mutex; Capture and
//    Processes may be called from any thread. Reading a process's environment
//    and checking for trace files happen outside the lock.
// 3. Between datagrams, at most every `settle_interval`, captures whose trace
//    file is there (or whose deadline passed) end, and processes silent for a
//    minute are forgotten.
#ifndef PROFDIFF_AGENT_KINETO_DAEMON_H_
#define PROFDIFF_AGENT_KINETO_DAEMON_H_

#include <atomic>
#include <cstdint>
#include <memory>
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

#include "agent/kineto_on_demand_config.h"
#include "agent/kineto_process_registry.h"
#include "agent/unix_datagram_socket.h"

namespace profdiff::agent {

struct KinetoDaemonOptions {
  std::string name = "dynolog";  // the fabric endpoint kineto sends to
  std::string socket_dir;        // KINETO_IPC_SOCKET_DIR's value; "" = abstract
  std::string logdir;            // captures' traces go below it
  absl::Duration settle_interval = absl::Milliseconds(200);
};

// Counters since start, for logs and tests.
struct KinetoDaemonCounts {
  int64_t registrations = 0;
  int64_t polls = 0;
  int64_t configs_sent = 0;
  int64_t refused = 0;  // datagrams that were not libkineto messages
};

class KinetoDaemon {
 public:
  // Binds the endpoint and starts serving. Errors: UnixDatagramSocket::Bind's
  // (Unavailable when dynolog or another agent already serves the name);
  // InvalidArgument for an empty log dir.
  static absl::StatusOr<std::unique_ptr<KinetoDaemon>> Start(
      KinetoDaemonOptions options);
  ~KinetoDaemon();
  KinetoDaemon(const KinetoDaemon&) = delete;
  KinetoDaemon& operator=(const KinetoDaemon&) = delete;

  // Stops serving and joins; later calls do nothing.
  void Stop();

  // Arms every process of `job` ("" = every process) for `spec`, each
  // capture ending when its trace is written or at `deadline`. Errors:
  // CheckKinetoCaptureSpec's.
  absl::StatusOr<CaptureArming> Capture(std::string_view job,
                                        const KinetoCaptureSpec& spec,
                                        absl::Time deadline)
      ABSL_LOCKS_EXCLUDED(mu_);
  std::vector<KinetoProcess> Processes() const ABSL_LOCKS_EXCLUDED(mu_);
  // Waits until no process is capturing, up to `timeout`; false on timeout.
  bool AwaitCapturesEnded(absl::Duration timeout) const
      ABSL_LOCKS_EXCLUDED(mu_);
  KinetoDaemonCounts Counts() const;

  // Use Start().
  KinetoDaemon(KinetoDaemonOptions options, UnixDatagramSocket socket);

 private:
  void Serve(std::stop_token stop);
  void Answer(const UnixDatagramSocket::Datagram& datagram);
  void Settle();
  // The job of a poll's process from its environment, checked against its
  // parent, read once per pid (loop thread).
  std::string EnvironmentJob(const std::vector<int32_t>& pids, int64_t job_id);

  const KinetoDaemonOptions options_;
  UnixDatagramSocket socket_;  // the loop thread's alone
  mutable absl::Mutex mu_;
  KinetoProcessRegistry registry_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int32_t, std::string> environment_jobs_;  // loop thread
  absl::Time last_settle_ = absl::InfinitePast();               // loop thread
  std::atomic<int64_t> registrations_{0};
  std::atomic<int64_t> polls_{0};
  std::atomic<int64_t> configs_sent_{0};
  std::atomic<int64_t> refused_{0};
  std::jthread thread_;  // last: stopped and joined first
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_KINETO_DAEMON_H_
