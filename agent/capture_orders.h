// What the agent does with a capture order from the aggregator: it arms the
// matching Kineto processes through its KinetoDaemon and orders a window from
// the matching CUPTI injection libraries (InjectedProcesses), and answers with
// the pids it told to capture and those already capturing. An order seen
// before (sent again after a reconnect) gets its first answer. Thread-safe.
#ifndef PROFDIFF_AGENT_CAPTURE_ORDERS_H_
#define PROFDIFF_AGENT_CAPTURE_ORDERS_H_

#include <map>
#include <string>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>

#include "agent/injected_processes.h"
#include "agent/kineto_daemon.h"
#include "profdiff/v1/agents.pb.h"

namespace profdiff::agent {

class CaptureOrders {
 public:
  // Either may be null (no --kineto-daemon, no --listen-unix); both must
  // outlive this.
  CaptureOrders(KinetoDaemon* daemon, InjectedProcesses* injected)
      : daemon_(daemon), injected_(injected) {}

  v1::CaptureAnswer Handle(const v1::CaptureOrder& order)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The processes the agent can ask to capture, for its status: Kineto's,
  // then the injected ones.
  std::vector<v1::LocalProcess> Processes() const;

 private:
  KinetoDaemon* const daemon_;
  InjectedProcesses* const injected_;
  absl::Mutex mu_;
  std::map<std::string, v1::CaptureAnswer> answered_ ABSL_GUARDED_BY(mu_);
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_CAPTURE_ORDERS_H_
