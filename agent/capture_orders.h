// What the agent does with a capture order from the aggregator: it arms the
// matching Kineto processes through its KinetoDaemon and orders a window from
// the matching CUPTI injection libraries (InjectedProcesses), and answers with
// the pids it told to capture and those already capturing. The answer is kept
// (ArmedCaptures) before it is returned, so an order seen before, sent again
// after a reconnect or to a restarted agent, gets its first answer and arms
// nothing. Thread-safe.
#ifndef PROFDIFF_AGENT_CAPTURE_ORDERS_H_
#define PROFDIFF_AGENT_CAPTURE_ORDERS_H_

#include <string_view>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>

#include "agent/armed_captures.h"
#include "agent/injected_processes.h"
#include "agent/kineto_daemon.h"
#include "profdiff/v1/agents.pb.h"

namespace profdiff::agent {

class CaptureOrders {
 public:
  // `daemon` and `injected` may be null (no --kineto-daemon, no
  // --listen-unix); all must outlive this.
  CaptureOrders(KinetoDaemon* daemon, InjectedProcesses* injected,
                ArmedCaptures* armed)
      : daemon_(daemon), injected_(injected), armed_(armed) {}

  v1::CaptureAnswer Handle(const v1::CaptureOrder& order)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Cancels `cancel.capture_id()`: its Kineto processes that have not taken
  // their config get none, its CUPTI libraries drop or close their window,
  // and nothing more of it is uploaded from its folders.
  void Cancel(const v1::CaptureCancel& cancel) ABSL_LOCKS_EXCLUDED(mu_);
  // The processes the agent can ask to capture, for its status: Kineto's,
  // then the injected ones.
  std::vector<v1::LocalProcess> Processes() const;

 private:
  KinetoDaemon* const daemon_;
  InjectedProcesses* const injected_;
  ArmedCaptures* const armed_;
  // Orders come from one stream's reader thread; the lock keeps two of them
  // (or an order and its cancel) from interleaving all the same.
  absl::Mutex mu_;
};

}  // namespace profdiff::agent

#endif  // PROFDIFF_AGENT_CAPTURE_ORDERS_H_
