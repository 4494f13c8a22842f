// The CUPTI injection libraries (libprofdiff_cupti.so) on this node, as the
// agent's unix socket (--listen-unix) sees them: each keeps an Agents.Control
// stream open to the agent, as the agent keeps one to the aggregator, saying
// which process it is and what it captures; the agent hands it capture orders
// (`profdiff capture`) and it answers each.
//
// Design:
// 1. The agent is the library's aggregator: the library speaks the same
//    Agents.Control protocol (agent/control_channel.h) with its one process
//    in its status (source "cupti", capture_id set while it captures), and
//    answers an order with a CaptureAnswer naming its pid as triggered or
//    busy, or an error. Only Control is served; the other Agents calls are
//    the aggregator's.
// 2. One handler thread per stream reads the library's reports; an order is
//    written from the caller's thread. Writes to a stream go through its own
//    mutex (gRPC allows one Read and one Write at a time), never under mu_.
// 3. Capture sends the order to every process of the job that is not
//    capturing and waits, up to `answer_timeout`, for their answers; a
//    process that says nothing in time is named in the result's errors.
// 4. A library speaks only for its own process: the pid of its status must be
//    the one the kernel gives for its connection (peer_process.h), its job a
//    valid id, and its answers count no pid but its own. At most
//    `max_libraries` streams at once (each holds a thread).
#ifndef PROFDIFF_AGENT_INJECTED_PROCESSES_H_
#define PROFDIFF_AGENT_INJECTED_PROCESSES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>
#include <grpcpp/grpcpp.h>

#include "agent/capture_arming.h"
#include "agent/relay_socket_server.h"
#include "profdiff/v1/agent_state.pb.h"
#include "profdiff/v1/agents.grpc.pb.h"

namespace profdiff::agent {

inline constexpr int kMaxInjectedLibraries = 1024;

// What an order did to the libraries: the answer's part, and the processes
// armed (for ArmedCaptures).
struct InjectedArming {
  CaptureArming arming;
  std::vector<v1::ArmedProcess> processes;
};

class InjectedProcesses final : public v1::Agents::Service {
 public:
  // `peers` says who is calling (design note 4).
  explicit InjectedProcesses(PeerLookup peers,
                             absl::Duration answer_timeout = absl::Seconds(5),
                             int max_libraries = kMaxInjectedLibraries);
  ~InjectedProcesses() override;
  InjectedProcesses(const InjectedProcesses&) = delete;
  InjectedProcesses& operator=(const InjectedProcesses&) = delete;

  // A library's stream (design note 1). Its first report is its status
  // naming exactly one process with a pid, else INVALID_ARGUMENT;
  // PERMISSION_DENIED when that pid is not the caller's (design note 4),
  // RESOURCE_EXHAUSTED past `max_libraries` streams. The process is
  // known, by the pid the agent sees it as, until the stream ends.
  grpc::Status Control(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::ControlMessage, v1::AgentReport>* stream)
      override;

  // Orders every process of order.job() ("" = every process) to capture, as
  // design note 3 says.
  InjectedArming Capture(const v1::CaptureOrder& order)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Sends `cancel` to the libraries capturing for it; returns their pids.
  std::vector<int32_t> Cancel(const v1::CaptureCancel& cancel)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The connected processes as their last status describes them, by pid.
  std::vector<v1::LocalProcess> Processes() const ABSL_LOCKS_EXCLUDED(mu_);
  // Ends every stream (the libraries reconnect to the next agent); later
  // streams are refused.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Library;

  const PeerLookup peers_;
  const absl::Duration answer_timeout_;
  const int max_libraries_;
  mutable absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  int64_t next_stream_ ABSL_GUARDED_BY(mu_) = 0;
  // By stream number; a process that reconnects has a new stream.
  std::map<int64_t, std::shared_ptr<Library>> libraries_ ABSL_GUARDED_BY(mu_);
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_INJECTED_PROCESSES_H_
