#include "agent/injected_processes.h"

#include <utility>

#include "base/log.h"
#include "base/str_cat.h"

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

  v1::LocalProcess process;
  std::map<std::string, v1::CaptureAnswer> answers;  // by capture id
  bool ended = false;
};

InjectedProcesses::InjectedProcesses(absl::Duration answer_timeout)
    : answer_timeout_(answer_timeout) {}

InjectedProcesses::~InjectedProcesses() { Stop(); }

grpc::Status InjectedProcesses::Control(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::ControlMessage, v1::AgentReport>* stream) {
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
  library->process = report.status().processes(0);
  library->process.set_source("cupti");
  const int32_t pid = library->process.pid();
  int64_t id = 0;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "the agent is stopping");
    }
    id = next_stream_++;
    libraries_.emplace(id, library);
  }
  PD_LOG(INFO, "CUPTI library connected pid=%d job=%s agent=%s", pid,
         library->process.job(), report.status().agent_id());
  while (stream->Read(&report)) {
    absl::MutexLock lock(&mu_);
    if (report.has_status() && report.status().processes_size() == 1) {
      library->process = report.status().processes(0);
      library->process.set_pid(pid);  // a stream is one process
      library->process.set_source("cupti");
    } else if (report.has_answer()) {
      if (library->answers.size() >= kMaxKeptAnswers) library->answers.clear();
      library->answers.insert_or_assign(report.answer().capture_id(),
                                        report.answer());
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

CaptureArming InjectedProcesses::Capture(const v1::CaptureOrder& order) {
  struct Asked {
    int32_t pid;
    std::shared_ptr<Library> library;
  };
  CaptureArming arming;
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
    arming.busy.insert(arming.busy.end(), answer.busy_pids().begin(),
                       answer.busy_pids().end());
    if (!answer.error().empty()) {
      arming.errors.push_back(
          base::StrCat("pid ", one.pid, ": ", answer.error()));
    }
    one.library->answers.erase(it);
  }
  return arming;
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
