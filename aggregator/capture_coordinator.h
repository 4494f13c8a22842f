// On-demand capture on the aggregator's side (docs/on-demand-capture.md): the
// agents connected to this replica over Control streams, and the captures,
// which live in the ControlStore every replica shares.
//
// Design:
// 1. A Control stream's first report is the agent's status; later statuses
//    replace it, answers are recorded. Statuses reach the ControlStore from
//    the coordinator's thread, at once when they change and every `heartbeat`
//    otherwise, so stream reactors never block on the store.
// 2. StartCapture checks the request, lists the agents every replica has seen
//    within `agent_ttl`, and asks those with a matching process; none is a
//    FAILED_PRECONDITION naming the agents there are, a running capture of the
//    same job ALREADY_EXISTS. The capture is stored RUNNING and handed to this
//    replica's agents at once.
// 3. Every `poll_interval` (at most a second) the thread reads the running
//    captures and hands each to the asked agents connected here that have not
//    had it: a capture started through any replica reaches every agent.
// 4. A capture's state is worked out when it is read: COMPLETE once its run is
//    COMPLETE with a trace from every process told to capture (a trace of a
//    smaller world cannot complete it); FAILED when every asked agent answered
//    and none could trigger a process; at the deadline PARTIAL with the
//    missing ranks, or FAILED without any trace. A final state is stored, so
//    the job may capture again.
// 5. An agent's answers to one capture are merged, never replaced: an agent
//    that restarted and says "busy" for the processes it armed before does
//    not undo its first "triggered".
// 6. CancelCapture stores the capture CANCELLED (the job may capture again
//    at once) and every replica hands the cancel to the asked agents
//    connected to it until the capture's deadline.
#ifndef PROFDIFF_AGGREGATOR_CAPTURE_COORDINATOR_H_
#define PROFDIFF_AGGREGATOR_CAPTURE_COORDINATOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/status/statusor.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

#include "aggregator/store/control_store.h"
#include "aggregator/store/store.h"
#include "base/clock.h"
#include "profdiff/v1/agents.pb.h"

namespace profdiff::aggregator {

struct CaptureCoordinatorOptions {
  std::string replica;  // this replica's name, in AgentStatus.replica
  absl::Duration poll_interval = absl::Milliseconds(500);
  absl::Duration heartbeat = absl::Seconds(5);
  absl::Duration agent_ttl = absl::Seconds(15);  // unseen longer: gone
  absl::Duration default_timeout = absl::Minutes(10);
  absl::Duration max_timeout = absl::Hours(24);
  int max_connections = 16384;
  // What deadlines, heartbeats and agent ages are read on (tests move it by
  // hand). Not owned; outlives the coordinator.
  base::Clock* clock = base::Clock::Real();
};

class CaptureCoordinator {
 public:
  // Queues a message on one Control stream; never blocks.
  using Sender = std::function<void(const v1::ControlMessage&)>;

  // `control` and `store` must outlive the coordinator.
  CaptureCoordinator(ControlStore* control, const Store* store,
                     CaptureCoordinatorOptions options);
  ~CaptureCoordinator();
  CaptureCoordinator(const CaptureCoordinator&) = delete;
  CaptureCoordinator& operator=(const CaptureCoordinator&) = delete;

  // A Control stream's first status: returns the connection's id, or
  // RESOURCE_EXHAUSTED past max_connections, or INVALID_ARGUMENT for an
  // agent id that is not a valid id.
  absl::StatusOr<int64_t> Connect(v1::AgentStatus status, Sender sender)
      ABSL_LOCKS_EXCLUDED(mu_);
  // A later report on that stream: a status replaces the last, an answer is
  // recorded (its agent id is the stream's).
  void Report(int64_t connection, v1::AgentReport report)
      ABSL_LOCKS_EXCLUDED(mu_);
  void Disconnect(int64_t connection) ABSL_LOCKS_EXCLUDED(mu_);

  absl::StatusOr<v1::ListAgentsResponse> ListAgents() ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::Capture> StartCapture(
      const v1::StartCaptureRequest& request) ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::Capture> GetCapture(const v1::GetCaptureRequest& request)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Design note 6. NotFound for an unknown capture; FailedPrecondition naming
  // the state of one that has ended.
  absl::StatusOr<v1::Capture> CancelCapture(
      const v1::CancelCaptureRequest& request) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Connection {
    v1::AgentStatus status;
    Sender sender;
  };

  void Loop(const std::stop_token& stop);
  // Writes changed (or all, when a heartbeat is due) statuses and queued
  // answers to the ControlStore.
  absl::Status Flush(bool heartbeat) ABSL_LOCKS_EXCLUDED(mu_);
  // Hands running captures to the asked agents connected here.
  absl::Status Dispatch() ABSL_LOCKS_EXCLUDED(mu_);
  // Design note 4; stores a final state.
  absl::StatusOr<v1::Capture> Evaluate(v1::Capture capture);
  // The captures in `state` whose deadline is after `now`.
  absl::StatusOr<std::vector<v1::Capture>> CapturesBefore(
      v1::CaptureState state, absl::Time now);

  ControlStore* const control_;
  const Store* const store_;
  const CaptureCoordinatorOptions options_;

  absl::Mutex mu_;
  int64_t next_connection_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<int64_t, Connection> connections_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> changed_agents_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::CaptureAnswer> answers_ ABSL_GUARDED_BY(mu_);
  // (capture id, agent id) pairs this replica has sent an order to, and a
  // cancel to.
  std::set<std::pair<std::string, std::string>> sent_ ABSL_GUARDED_BY(mu_);
  std::set<std::pair<std::string, std::string>> cancels_sent_
      ABSL_GUARDED_BY(mu_);

  absl::Mutex flush_mu_;  // one Flush at a time; taken before mu_
  absl::Time last_heartbeat_ ABSL_GUARDED_BY(flush_mu_) = absl::InfinitePast();
  std::jthread thread_;  // last: stopped and joined first
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_CAPTURE_COORDINATOR_H_
