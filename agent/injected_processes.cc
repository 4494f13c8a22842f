#include "agent/injected_processes.h"

#include <algorithm>
#include <utility>

#include "agent/peer_process.h"
#include "base/id_rules.h"
#include "base/log.h"
#include "base/str_cat.h"
#include "rpc/status_conversion.h"

namespace profdiff::agent {
namespace {

// Answers kept per library for captures nobody waits for any more (late
// ones): a bound, not a cache.
constexpr size_t kMaxKeptAnswers = 64;

}  // namespace

// One connected library. `context` and `stream` are valid while its handler
// runs, that is while `closed` is false (read under `write_mu`). `process`,
// `answers` and `ended` are guarded by the owner's mu_.
struct InjectedProcesses::Library {
  Library(grpc::ServerContext* context,
          grpc::ServerReaderWriter<v1::ControlMessage, v1::AgentReport>* stream)
      : context(context), stream(stream) {}

  grpc::ServerContext* const context;
  grpc::ServerReaderWriter<v1::ControlMessage, v1::AgentReport>* const stream;
  absl::Mutex write_mu;
  bool closed ABSL_GUARDED_BY(write_mu) = false;

  v1::LocalProcess process;  // pid: as the agent sees it
  int32_t own_pid = 0;       // as the process sees itself
  std::map<std::string, v1::CaptureAnswer> answers;  // by capture id
  bool ended = false;
};

namespace {

// What a library says of its process, checked (design note 4): its pid is
// the caller's, its job an id. The process comes back with the agent's view
// of its pid and the kernel's uid.
absl::StatusOr<v1::LocalProcess> CheckedProcess(v1::LocalProcess process,
                                                const PeerCredentials& peer,
                                                int32_t* own_pid) {
  absl::StatusOr<VerifiedProcess> verified =
      VerifyClaimedPid(process.pid(), peer);
  if (!verified.ok()) return verified.status();
  if (!process.job().empty() && process.job() != "0") {
    if (absl::Status valid = base::ValidateId("job", process.job());
        !valid.ok()) {
      return valid;
    }
  }
  *own_pid = verified->pid;
  process.set_pid(verified->host_pid);
  process.set_uid(verified->uid);
  process.set_source("cupti");
  return process;
}

// `answer` counting no pid but `own` (the library's, as it sees itself),
// reported as `host_pid`.
v1::CaptureAnswer OnlyItsOwnPid(v1::CaptureAnswer answer, int32_t own,
                                int32_t host_pid) {
  const auto keep = [&](google::protobuf::RepeatedField<int32_t>* pids) {
    const bool named =
        std::find(pids->begin(), pids->end(), own) != pids->end();
    pids->Clear();
    if (named) pids->Add(host_pid);
  };
  keep(answer.mutable_triggered_pids());
  keep(answer.mutable_busy_pids());
  return answer;
}

}  // namespace

InjectedProcesses::InjectedProcesses(PeerLookup peers,
                                     absl::Duration answer_timeout,
                                     int max_libraries)
    : peers_(std::move(peers)),
      answer_timeout_(answer_timeout),
      max_libraries_(max_libraries) {}

InjectedProcesses::~InjectedProcesses() { Stop(); }

grpc::Status InjectedProcesses::Control(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::ControlMessage, v1::AgentReport>* stream) {
  const std::optional<PeerCredentials> peer = peers_(*context);
  if (!peer.has_value()) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        "libraries are served only on the agent's unix socket");
  }
  v1::AgentReport report;
  if (!stream->Read(&report)) {
    return grpc::Status(grpc::StatusCode::CANCELLED,
                        "the stream ended before its first report");
  }
  if (!report.has_status() || report.status().processes_size() != 1 ||
      report.status().processes(0).pid() <= 0) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        base::StrCat(
            "a CUPTI injection library's first report is its status "
            "naming its one process; got ",
            report.has_status()
                ? base::StrCat(report.status().processes_size(), " processes")
                : "an answer"));
  }
  auto library = std::make_shared<Library>(context, stream);
  absl::StatusOr<v1::LocalProcess> process =
      CheckedProcess(report.status().processes(0), *peer, &library->own_pid);
  if (!process.ok()) {
    PD_LOG(WARNING, "CUPTI library refused (uid %d, pid %d): %s", peer->uid,
           peer->pid, process.status().message());
    return rpc::ToGrpcStatus(process.status());
  }
  library->process = *std::move(process);
  const int32_t pid = library->process.pid();
  int64_t id = 0;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "the agent is stopping");
    }
    if (static_cast<int>(libraries_.size()) >= max_libraries_) {
      return grpc::Status(
          grpc::StatusCode::RESOURCE_EXHAUSTED,
          base::StrCat(max_libraries_,
                       " CUPTI libraries are connected, the agent's limit"));
    }
    id = next_stream_++;
    libraries_.emplace(id, library);
  }
  PD_LOG(INFO, "CUPTI library connected pid=%d job=%s agent=%s", pid,
         library->process.job(), report.status().agent_id());
  while (stream->Read(&report)) {
    if (report.has_status() && report.status().processes_size() == 1) {
      // A stream is one process: a later status may not name another.
      v1::LocalProcess said = report.status().processes(0);
      said.set_pid(library->own_pid);
      int32_t own_pid = 0;
      absl::StatusOr<v1::LocalProcess> checked =
          CheckedProcess(std::move(said), *peer, &own_pid);
      absl::MutexLock lock(&mu_);
      if (checked.ok()) library->process = *std::move(checked);
    } else if (report.has_answer()) {
      v1::CaptureAnswer answer =
          OnlyItsOwnPid(report.answer(), library->own_pid, pid);
      absl::MutexLock lock(&mu_);
      if (library->answers.size() >= kMaxKeptAnswers) library->answers.clear();
      library->answers.insert_or_assign(answer.capture_id(), std::move(answer));
    }
  }
  {
    absl::MutexLock write_lock(&library->write_mu);
    library->closed = true;
  }
  {
    absl::MutexLock lock(&mu_);
    library->ended = true;
    libraries_.erase(id);
  }
  PD_LOG(INFO, "CUPTI library gone pid=%d", pid);
  return grpc::Status::OK;
}

InjectedArming InjectedProcesses::Capture(const v1::CaptureOrder& order) {
  struct Asked {
    int32_t pid;
    std::shared_ptr<Library> library;
  };
  InjectedArming result;
  CaptureArming& arming = result.arming;
  std::vector<Asked> asked;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, library] : libraries_) {
      const v1::LocalProcess& process = library->process;
      if (!order.job().empty() && process.job() != order.job()) continue;
      if (!process.capture_id().empty()) {
        arming.busy.push_back(process.pid());
        continue;
      }
      asked.push_back({process.pid(), library});
    }
  }
  v1::ControlMessage message;
  *message.mutable_capture() = order;
  std::vector<Asked> sent;
  for (const Asked& one : asked) {
    // The stream's own lock (design note 2): the handler cannot end under us.
    absl::MutexLock write_lock(&one.library->write_mu);
    if (!one.library->closed && one.library->stream->Write(message)) {
      sent.push_back(one);
    } else {
      arming.errors.push_back(base::StrCat(
          "pid ", one.pid, ": its stream ended before the order reached it"));
    }
  }
  const std::string& capture_id = order.capture_id();
  absl::MutexLock lock(&mu_);
  const auto answered = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (const Asked& one : sent) {
      if (!one.library->ended && !one.library->answers.contains(capture_id))
        return false;
    }
    return true;
  };
  mu_.AwaitWithTimeout(absl::Condition(&answered), answer_timeout_);
  for (const Asked& one : sent) {
    auto it = one.library->answers.find(capture_id);
    if (it == one.library->answers.end()) {
      arming.errors.push_back(
          one.library->ended
              ? base::StrCat("pid ", one.pid, ": its library went away")
              : base::StrCat("pid ", one.pid, ": no answer within ",
                             absl::FormatDuration(answer_timeout_)));
      continue;
    }
    const v1::CaptureAnswer& answer = it->second;
    arming.armed.insert(arming.armed.end(), answer.triggered_pids().begin(),
                        answer.triggered_pids().end());
    if (answer.triggered_pids_size() > 0) {
      v1::ArmedProcess& armed = result.processes.emplace_back();
      armed.set_host_pid(one.pid);
      armed.set_pid(one.library->own_pid);
      armed.set_uid(one.library->process.uid());
      armed.set_source("cupti");
    }
    arming.busy.insert(arming.busy.end(), answer.busy_pids().begin(),
                       answer.busy_pids().end());
    if (!answer.error().empty()) {
      arming.errors.push_back(
          base::StrCat("pid ", one.pid, ": ", answer.error()));
    }
    one.library->answers.erase(it);
  }
  return result;
}

std::vector<int32_t> InjectedProcesses::Cancel(
    const v1::CaptureCancel& cancel) {
  std::vector<std::pair<int32_t, std::shared_ptr<Library>>> capturing;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, library] : libraries_) {
      if (library->process.capture_id() == cancel.capture_id()) {
        capturing.emplace_back(library->process.pid(), library);
      }
    }
  }
  v1::ControlMessage message;
  *message.mutable_cancel() = cancel;
  std::vector<int32_t> told;
  for (const auto& [pid, library] : capturing) {
    absl::MutexLock write_lock(&library->write_mu);
    if (!library->closed && library->stream->Write(message)) {
      told.push_back(pid);
    }
  }
  return told;
}

std::vector<v1::LocalProcess> InjectedProcesses::Processes() const {
  std::map<int32_t, v1::LocalProcess> by_pid;
  absl::MutexLock lock(&mu_);
  for (const auto& [id, library] : libraries_) {
    by_pid.insert_or_assign(library->process.pid(), library->process);
  }
  std::vector<v1::LocalProcess> out;
  out.reserve(by_pid.size());
  for (auto& [pid, process] : by_pid) out.push_back(std::move(process));
  return out;
}

void InjectedProcesses::Stop() {
  std::vector<std::shared_ptr<Library>> open;
  {
    absl::MutexLock lock(&mu_);
    stopped_ = true;
    for (const auto& [id, library] : libraries_) open.push_back(library);
  }
  for (const std::shared_ptr<Library>& library : open) {
    absl::MutexLock write_lock(&library->write_mu);
    if (!library->closed) library->context->TryCancel();
  }
}

}  // namespace profdiff::agent
