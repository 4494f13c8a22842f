#include "aggregator/capture_coordinator.h"

#include <algorithm>
#include <utility>

#include <absl/status/status.h>
#include <absl/strings/str_join.h>

#include "base/id_rules.h"
#include "base/log.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/stoppable_wait.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {
namespace {

constexpr int32_t kMaxSteps = 10000;
constexpr int64_t kMaxDurationMs = 3'600'000;  // an hour of tracing
// How far after the step a process is at a capture may start: a capture
// waiting for step 2^62 holds its job (and every --all capture) until its
// deadline. The CUPTI library refuses such windows too
// (agent/cupti/capture_window.h). Processes whose step is unknown (Kineto's)
// are held to kMaxStartAtStep.
constexpr int64_t kMaxStepsAhead = 100'000;
constexpr int64_t kMaxStartAtStep = 100'000'000;

// Dates in messages: a capture may end tomorrow.
std::string FormatDate(absl::Time time) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", time, absl::UTCTimeZone());
}

// Design note 5: what `later` adds to `kept` (the same agent's answers to one
// capture): every pid either triggered stays triggered; busy are the pids
// never triggered; errors are both, once each.
v1::CaptureAnswer MergeAnswers(const v1::CaptureAnswer& kept,
                               const v1::CaptureAnswer& later) {
  std::set<int32_t> triggered(kept.triggered_pids().begin(),
                              kept.triggered_pids().end());
  triggered.insert(later.triggered_pids().begin(),
                   later.triggered_pids().end());
  std::set<int32_t> busy(kept.busy_pids().begin(), kept.busy_pids().end());
  busy.insert(later.busy_pids().begin(), later.busy_pids().end());
  v1::CaptureAnswer merged = kept;
  merged.clear_triggered_pids();
  merged.clear_busy_pids();
  for (const int32_t pid : triggered) merged.add_triggered_pids(pid);
  for (const int32_t pid : busy) {
    if (!triggered.contains(pid)) merged.add_busy_pids(pid);
  }
  if (!later.error().empty() && kept.error() != later.error()) {
    merged.set_error(kept.error().empty()
                         ? later.error()
                         : base::StrCat(kept.error(), "; ", later.error()));
  }
  return merged;
}

bool Matches(const v1::LocalProcess& process, const std::string& job) {
  return job.empty() || process.job() == job;
}

bool HasMatchingProcess(const v1::AgentStatus& agent, const std::string& job) {
  return std::any_of(
      agent.processes().begin(), agent.processes().end(),
      [&](const v1::LocalProcess& process) { return Matches(process, job); });
}

// "node-a (jobs 7, 8), node-b (no processes)": what each agent could capture.
std::string DescribeAgents(const std::vector<v1::AgentStatus>& agents) {
  std::vector<std::string> parts;
  for (const v1::AgentStatus& agent : agents) {
    std::set<std::string> jobs;
    for (const v1::LocalProcess& process : agent.processes()) {
      jobs.insert(process.job());
    }
    parts.push_back(base::StrCat(
        agent.agent_id(), " (",
        jobs.empty() ? "no processes"
                     : base::StrCat(jobs.size() == 1 ? "job " : "jobs ",
                                    absl::StrJoin(jobs, ", ")),
        ")"));
  }
  return absl::StrJoin(parts, ", ");
}

std::string JobLabel(const std::string& job) {
  return job.empty() ? "every job" : base::StrCat("job ", job);
}

std::string DefaultRun(const std::string& job, absl::Time now) {
  return base::StrCat(
      job.empty() ? "all" : job, "-capture-",
      absl::FormatTime("%Y%m%d-%H%M%S", now, absl::UTCTimeZone()));
}

absl::Status CheckRequest(const v1::StartCaptureRequest& request,
                          const CaptureCoordinatorOptions& options) {
  if (request.all_jobs() == !request.job().empty()) {
    return absl::InvalidArgumentError(
        "job: give a job id or all_jobs (--job JOB or --all), not both");
  }
  if (!request.job().empty()) {
    PD_RETURN_IF_ERROR(base::ValidateId("job", request.job()));
  }
  if ((request.steps() > 0) == (request.duration_ms() > 0)) {
    return absl::InvalidArgumentError(
        "steps / duration_ms: give one of them (--steps N or --duration D)");
  }
  if (request.steps() < 0 || request.steps() > kMaxSteps) {
    return absl::InvalidArgumentError(
        base::StrCat("steps: ", request.steps(), " is outside 1..", kMaxSteps));
  }
  if (request.duration_ms() < 0 || request.duration_ms() > kMaxDurationMs) {
    return absl::InvalidArgumentError(
        base::StrCat("duration_ms: ", request.duration_ms(), " is outside 1..",
                     kMaxDurationMs, " (an hour)"));
  }
  if (request.has_start_at_step() &&
      (request.start_at_step() < 0 ||
       request.start_at_step() > kMaxStartAtStep)) {
    return absl::InvalidArgumentError(
        base::StrCat("start_at_step: ", request.start_at_step(),
                     " is outside 0..", kMaxStartAtStep));
  }
  if (request.timeout_ms() < 0 ||
      absl::Milliseconds(request.timeout_ms()) > options.max_timeout) {
    return absl::InvalidArgumentError(
        base::StrCat("timeout_ms: ", request.timeout_ms(), " is outside 0..",
                     absl::ToInt64Milliseconds(options.max_timeout)));
  }
  if (!request.run().empty()) {
    PD_RETURN_IF_ERROR(base::ValidateId("run", request.run()));
  }
  return absl::OkStatus();
}

// The ranks of [0, world_size) without a closed span in `run`.
std::vector<int32_t> MissingRanks(const v1::StoredRun& run) {
  const std::set<int32_t> closed(run.closed_ranks().begin(),
                                 run.closed_ranks().end());
  std::vector<int32_t> missing;
  for (int32_t rank = 0; rank < run.world_size(); ++rank) {
    if (!closed.contains(rank)) missing.push_back(rank);
  }
  return missing;
}

// Why no process captured: every agent's busy pids and errors.
std::string WhyNoneTriggered(const v1::Capture& capture) {
  std::vector<std::string> parts;
  for (const v1::CaptureAnswer& answer : capture.answers()) {
    if (!answer.error().empty()) {
      parts.push_back(base::StrCat(answer.agent_id(), ": ", answer.error()));
    } else if (answer.busy_pids_size() > 0) {
      parts.push_back(
          base::StrCat(answer.agent_id(), ": already capturing (pids ",
                       absl::StrJoin(answer.busy_pids(), ","), ")"));
    } else {
      parts.push_back(base::StrCat(answer.agent_id(), ": no matching process"));
    }
  }
  return base::StrCat("no process was told to capture: ",
                      absl::StrJoin(parts, "; "));
}

}  // namespace

CaptureCoordinator::CaptureCoordinator(ControlStore* control,
                                       const Store* store,
                                       CaptureCoordinatorOptions options)
    : control_(control),
      store_(store),
      options_(std::move(options)),
      thread_([this](const std::stop_token& stop) { Loop(stop); }) {}

CaptureCoordinator::~CaptureCoordinator() {
  thread_.request_stop();
  thread_.join();
}

absl::StatusOr<int64_t> CaptureCoordinator::Connect(v1::AgentStatus status,
                                                    Sender sender) {
  PD_RETURN_IF_ERROR(base::ValidateId("agent_id", status.agent_id()));
  absl::MutexLock lock(&mu_);
  if (static_cast<int>(connections_.size()) >= options_.max_connections) {
    return absl::ResourceExhaustedError(
        base::StrCat(options_.max_connections,
                     " agents are connected, the limit of this replica"));
  }
  const int64_t id = next_connection_++;
  changed_agents_.insert(status.agent_id());
  // A new stream has had no order yet, and it is the one orders go to: an
  // agent that restarts before its old stream's end is noticed must get the
  // running orders again (it answers one it has seen with its first answer).
  std::erase_if(sent_, [&](const auto& pair) {
    return pair.second == status.agent_id();
  });
  connections_[id] = {std::move(status), std::move(sender)};
  return id;
}

void CaptureCoordinator::Report(int64_t connection, v1::AgentReport report) {
  absl::MutexLock lock(&mu_);
  auto it = connections_.find(connection);
  if (it == connections_.end()) return;
  const std::string& agent_id = it->second.status.agent_id();
  if (report.has_status()) {
    // The stream's agent id stays what it said first.
    report.mutable_status()->set_agent_id(agent_id);
    it->second.status = std::move(*report.mutable_status());
    changed_agents_.insert(agent_id);
  } else if (report.has_answer()) {
    report.mutable_answer()->set_agent_id(agent_id);
    answers_.push_back(std::move(*report.mutable_answer()));
  }
}

void CaptureCoordinator::Disconnect(int64_t connection) {
  absl::MutexLock lock(&mu_);
  auto it = connections_.find(connection);
  if (it == connections_.end()) return;
  const std::string agent_id = it->second.status.agent_id();
  connections_.erase(it);
  for (const auto& [id, other] : connections_) {
    if (other.status.agent_id() == agent_id) return;
  }
  // Orders the agent may not have had go again when it reconnects; it
  // answers an order it has seen with its first answer.
  std::erase_if(sent_,
                [&](const auto& pair) { return pair.second == agent_id; });
}

absl::Status CaptureCoordinator::Flush(bool heartbeat) {
  absl::MutexLock flush_lock(&flush_mu_);
  const absl::Time now = options_.clock->Now();
  const bool all = heartbeat || now - last_heartbeat_ >= options_.heartbeat;
  std::map<std::string, v1::AgentStatus> statuses;
  std::vector<v1::CaptureAnswer> answers;
  {
    absl::MutexLock lock(&mu_);
    // The newest stream of an agent id speaks for it.
    for (const auto& [id, connection] : connections_) {
      const std::string& agent_id = connection.status.agent_id();
      if (all || changed_agents_.contains(agent_id)) {
        statuses[agent_id] = connection.status;
      }
    }
    changed_agents_.clear();
    answers.swap(answers_);
  }
  if (all) last_heartbeat_ = now;
  std::vector<v1::AgentStatus> rows;
  for (auto& [agent_id, status] : statuses) {
    status.set_seen_unix_ms(absl::ToUnixMillis(now));
    status.set_replica(options_.replica);
    rows.push_back(std::move(status));
  }
  absl::Status stored =
      rows.empty() ? absl::OkStatus() : control_->PutAgents(rows);
  for (const v1::CaptureAnswer& answer : answers) {
    if (!stored.ok()) break;
    absl::StatusOr<std::vector<v1::CaptureAnswer>> earlier =
        control_->ListAnswers(answer.capture_id());
    if (!earlier.ok()) {
      stored = earlier.status();
      break;
    }
    v1::CaptureAnswer merged = answer;
    for (const v1::CaptureAnswer& kept : *earlier) {
      if (kept.agent_id() == answer.agent_id()) {
        merged = MergeAnswers(kept, answer);
      }
    }
    stored = control_->PutAnswer(merged);
  }
  if (!stored.ok()) {
    // Kept for the next round: the store may be back by then.
    absl::MutexLock lock(&mu_);
    for (const v1::AgentStatus& row : rows) {
      changed_agents_.insert(row.agent_id());
    }
    answers_.insert(answers_.begin(), answers.begin(), answers.end());
  }
  return stored;
}

absl::StatusOr<std::vector<v1::Capture>> CaptureCoordinator::CapturesBefore(
    v1::CaptureState state, absl::Time now) {
  PD_ASSIGN_OR_RETURN(
      std::vector<v1::Capture> captures,
      control_->ListCaptures(now - options_.max_timeout - absl::Hours(1)));
  std::erase_if(captures, [&](const v1::Capture& capture) {
    return capture.state() != state ||
           absl::FromUnixMillis(capture.order().deadline_unix_ms()) <= now;
  });
  return captures;
}

absl::Status CaptureCoordinator::Dispatch() {
  const absl::Time now = options_.clock->Now();
  PD_ASSIGN_OR_RETURN(const std::vector<v1::Capture> running,
                      CapturesBefore(v1::CAPTURE_STATE_RUNNING, now));
  PD_ASSIGN_OR_RETURN(const std::vector<v1::Capture> cancelled,
                      CapturesBefore(v1::CAPTURE_STATE_CANCELLED, now));
  std::vector<std::pair<Sender, v1::ControlMessage>> sends;
  {
    absl::MutexLock lock(&mu_);
    std::map<std::string, const Connection*> newest;
    for (const auto& [id, connection] : connections_) {
      newest[connection.status.agent_id()] = &connection;
    }
    std::set<std::string> running_ids;
    for (const v1::Capture& capture : running) {
      running_ids.insert(capture.capture_id());
      for (const std::string& agent_id : capture.agents_asked()) {
        auto it = newest.find(agent_id);
        if (it == newest.end()) continue;
        if (!sent_.emplace(capture.capture_id(), agent_id).second) continue;
        v1::ControlMessage message;
        *message.mutable_capture() = capture.order();
        sends.emplace_back(it->second->sender, std::move(message));
      }
    }
    std::erase_if(sent_, [&](const auto& pair) {
      return !running_ids.contains(pair.first);
    });
    // Design note 6: every asked agent connected here hears of a cancel
    // once, while the capture could still be running there.
    std::set<std::string> cancelled_ids;
    for (const v1::Capture& capture : cancelled) {
      cancelled_ids.insert(capture.capture_id());
      for (const std::string& agent_id : capture.agents_asked()) {
        auto it = newest.find(agent_id);
        if (it == newest.end()) continue;
        if (!cancels_sent_.emplace(capture.capture_id(), agent_id).second) {
          continue;
        }
        v1::ControlMessage message;
        message.mutable_cancel()->set_capture_id(capture.capture_id());
        sends.emplace_back(it->second->sender, std::move(message));
      }
    }
    std::erase_if(cancels_sent_, [&](const auto& pair) {
      return !cancelled_ids.contains(pair.first);
    });
  }
  for (const auto& [sender, message] : sends) sender(message);
  return absl::OkStatus();
}

void CaptureCoordinator::Loop(const std::stop_token& stop) {
  // While the ControlStore is away (a ClickHouse shard down) every round
  // fails: the first failure is logged, then one a minute.
  const int64_t rounds_a_minute =
      std::max<int64_t>(1, absl::Minutes(1) / options_.poll_interval);
  int64_t failed_rounds = 0;
  while (base::WaitUnlessStopped(stop, options_.poll_interval)) {
    absl::Status round = Flush(false);
    if (round.ok()) round = Dispatch();
    if (round.ok()) {
      failed_rounds = 0;
    } else if (failed_rounds++ % rounds_a_minute == 0) {
      PD_LOG(WARNING, "captures not handed out (%d rounds so far): %s",
             failed_rounds, round.ToString());
    }
  }
}

absl::StatusOr<v1::ListAgentsResponse> CaptureCoordinator::ListAgents() {
  PD_RETURN_IF_ERROR(Flush(false));
  PD_ASSIGN_OR_RETURN(
      std::vector<v1::AgentStatus> agents,
      control_->ListAgents(options_.clock->Now() - options_.agent_ttl));
  v1::ListAgentsResponse response;
  for (v1::AgentStatus& agent : agents) {
    *response.add_agents() = std::move(agent);
  }
  return response;
}

absl::StatusOr<v1::Capture> CaptureCoordinator::StartCapture(
    const v1::StartCaptureRequest& request) {
  PD_RETURN_IF_ERROR(CheckRequest(request, options_));
  const absl::Time now = options_.clock->Now();
  const std::string& job = request.job();
  const std::string run =
      request.run().empty() ? DefaultRun(job, now) : request.run();
  PD_RETURN_IF_ERROR(Flush(false));
  PD_ASSIGN_OR_RETURN(const std::vector<v1::AgentStatus> agents,
                      control_->ListAgents(now - options_.agent_ttl));
  std::vector<std::string> asked;
  int64_t furthest_step = -1;  // of the matching processes that say
  for (const v1::AgentStatus& agent : agents) {
    if (HasMatchingProcess(agent, job)) asked.push_back(agent.agent_id());
    for (const v1::LocalProcess& process : agent.processes()) {
      if (Matches(process, job) && process.has_step()) {
        furthest_step = std::max(furthest_step, process.step());
      }
    }
  }
  if (agents.empty()) {
    return absl::FailedPreconditionError(
        "no agent is connected to the aggregator: start profdiff-agent with "
        "--kineto-daemon (or --listen-unix) on the training nodes");
  }
  if (asked.empty()) {
    return absl::FailedPreconditionError(
        base::StrCat("no process of ", JobLabel(job), " on the ", agents.size(),
                     agents.size() == 1 ? " agent" : " agents",
                     " connected: ", DescribeAgents(agents)));
  }
  if (request.has_start_at_step() && furthest_step >= 0 &&
      request.start_at_step() > furthest_step + kMaxStepsAhead) {
    return absl::InvalidArgumentError(base::StrCat(
        "start_at_step: ", request.start_at_step(), " is more than ",
        kMaxStepsAhead, " steps after the furthest step of ", JobLabel(job),
        "'s processes (", furthest_step, ")"));
  }
  PD_ASSIGN_OR_RETURN(const std::vector<v1::Capture> running,
                      CapturesBefore(v1::CAPTURE_STATE_RUNNING, now));
  for (const v1::Capture& other : running) {
    if (other.job() == job || other.job().empty() || job.empty()) {
      return absl::AlreadyExistsError(base::StrCat(
          JobLabel(other.job()), " is already capturing: capture ",
          other.capture_id(), " until ",
          FormatDate(absl::FromUnixMillis(other.order().deadline_unix_ms())),
          "; wait for it to end (profdiff capture --wait ", other.capture_id(),
          ") or cancel it (profdiff capture --cancel ", other.capture_id(),
          ")"));
    }
  }
  PD_ASSIGN_OR_RETURN(const std::optional<v1::Capture> same,
                      control_->GetCapture(run));
  if (same.has_value()) {
    return absl::AlreadyExistsError(base::StrCat(
        "run: a capture named ", run, " exists; pick another --run"));
  }
  if (store_->GetRun(run, RunDetail::kSummary).ok()) {
    return absl::AlreadyExistsError(
        base::StrCat("run: ", run, " is already stored; pick another --run"));
  }
  const absl::Duration timeout = request.timeout_ms() > 0
                                     ? absl::Milliseconds(request.timeout_ms())
                                     : options_.default_timeout;
  v1::Capture capture;
  capture.set_capture_id(run);
  capture.set_run(run);
  capture.set_job(job);
  capture.set_state(v1::CAPTURE_STATE_RUNNING);
  capture.set_created_unix_ms(absl::ToUnixMillis(now));
  v1::CaptureOrder& order = *capture.mutable_order();
  order.set_capture_id(run);
  order.set_run(run);
  order.set_job(job);
  order.set_steps(request.steps());
  order.set_duration_ms(request.duration_ms());
  order.set_start_at_step(request.has_start_at_step() ? request.start_at_step()
                                                      : -1);
  order.set_deadline_unix_ms(absl::ToUnixMillis(now + timeout));
  for (const std::string& agent_id : asked) capture.add_agents_asked(agent_id);
  PD_RETURN_IF_ERROR(control_->PutCapture(capture));
  PD_LOG(INFO, "capture started capture=%s job=%s agents=%s", run,
         job.empty() ? "(all)" : job, absl::StrJoin(asked, ","));
  PD_RETURN_IF_ERROR(Dispatch());
  return capture;
}

absl::StatusOr<v1::Capture> CaptureCoordinator::GetCapture(
    const v1::GetCaptureRequest& request) {
  PD_RETURN_IF_ERROR(Flush(false));  // answers that came in here
  PD_ASSIGN_OR_RETURN(std::optional<v1::Capture> capture,
                      control_->GetCapture(request.capture_id()));
  if (!capture.has_value()) {
    return absl::NotFoundError(
        base::StrCat("no capture ", base::QuoteBytes(request.capture_id())));
  }
  return Evaluate(std::move(*capture));
}

absl::StatusOr<v1::Capture> CaptureCoordinator::Evaluate(v1::Capture capture) {
  if (capture.state() != v1::CAPTURE_STATE_RUNNING) return capture;
  const absl::Time now = options_.clock->Now();
  PD_ASSIGN_OR_RETURN(std::vector<v1::CaptureAnswer> answers,
                      control_->ListAnswers(capture.capture_id()));
  capture.clear_answers();
  int32_t triggered = 0;
  std::set<std::string> answered;
  for (v1::CaptureAnswer& answer : answers) {
    triggered += answer.triggered_pids_size();
    answered.insert(answer.agent_id());
    *capture.add_answers() = std::move(answer);
  }
  capture.set_ranks_triggered(triggered);
  absl::StatusOr<v1::StoredRun> run =
      store_->GetRun(capture.run(), RunDetail::kSummary);
  if (!run.ok() && !absl::IsNotFound(run.status())) return run.status();
  if (run.ok()) {
    capture.set_traces_uploaded(run->closed_worker_count());
    capture.set_world_size(run->world_size());
  }
  const bool all_answered = std::all_of(
      capture.agents_asked().begin(), capture.agents_asked().end(),
      [&](const std::string& agent) { return answered.contains(agent); });
  const bool past_deadline =
      now >= absl::FromUnixMillis(capture.order().deadline_unix_ms());
  // Design note 4: a trace of a smaller world than the processes told to
  // capture (another user's, say) does not complete it.
  if (run.ok() && run->state() == v1::RUN_STATE_COMPLETE &&
      capture.traces_uploaded() >= triggered) {
    capture.set_state(v1::CAPTURE_STATE_COMPLETE);
  } else if (all_answered && triggered == 0) {
    capture.set_state(v1::CAPTURE_STATE_FAILED);
    capture.set_error(WhyNoneTriggered(capture));
  } else if (past_deadline && capture.traces_uploaded() > 0) {
    capture.set_state(v1::CAPTURE_STATE_PARTIAL);
    for (const int32_t rank : MissingRanks(*run)) {
      capture.add_missing_ranks(rank);
    }
    if (capture.missing_ranks_size() == 0) {
      capture.set_error(
          base::StrCat(triggered, " processes were told to capture and ",
                       capture.traces_uploaded(), " traces came (world size ",
                       capture.world_size(), ")"));
    }
  } else if (past_deadline) {
    capture.set_state(v1::CAPTURE_STATE_FAILED);
    capture.set_error(base::StrCat(
        "no trace came back before the deadline; ", triggered,
        " processes were told to capture (agents asked: ",
        absl::StrJoin(capture.agents_asked(), ", "),
        "); a Kineto process writes its trace only below "
        "KINETO_ONDEMAND_TRACE_DIR, which must be the agent's log dir"));
  }
  if (capture.state() != v1::CAPTURE_STATE_RUNNING) {
    PD_RETURN_IF_ERROR(control_->PutCapture(capture));
    PD_LOG(INFO, "capture ended capture=%s state=%s traces=%d world=%d",
           capture.capture_id(), v1::CaptureState_Name(capture.state()),
           capture.traces_uploaded(), capture.world_size());
  }
  return capture;
}

absl::StatusOr<v1::Capture> CaptureCoordinator::CancelCapture(
    const v1::CancelCaptureRequest& request) {
  v1::GetCaptureRequest get;
  get.set_capture_id(request.capture_id());
  PD_ASSIGN_OR_RETURN(v1::Capture capture, GetCapture(get));
  if (capture.state() != v1::CAPTURE_STATE_RUNNING) {
    return absl::FailedPreconditionError(base::StrCat(
        "capture ", capture.capture_id(), " has ended (",
        v1::CaptureState_Name(capture.state()), "); nothing to cancel"));
  }
  const absl::Time now = options_.clock->Now();
  capture.set_state(v1::CAPTURE_STATE_CANCELLED);
  capture.set_error(base::StrCat("cancelled at ", FormatDate(now), " with ",
                                 capture.traces_uploaded(),
                                 " traces uploaded"));
  PD_RETURN_IF_ERROR(control_->PutCapture(capture));
  PD_LOG(INFO, "capture cancelled capture=%s traces=%d", capture.capture_id(),
         capture.traces_uploaded());
  PD_RETURN_IF_ERROR(Dispatch());
  return capture;
}

}  // namespace profdiff::aggregator
