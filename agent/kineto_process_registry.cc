#include "agent/kineto_process_registry.h"

#include <absl/status/status.h>

#include "base/str_cat.h"

namespace profdiff::agent {

void KinetoProcessRegistry::Count(const KinetoProcess& process, int delta) {
  per_job_gpu_[{process.job, process.gpu}] += delta;
  if (per_job_gpu_[{process.job, process.gpu}] == 0) {
    per_job_gpu_.erase({process.job, process.gpu});
  }
}

void KinetoProcessRegistry::Erase(
    std::map<int32_t, KinetoProcess>::iterator it) {
  Count(it->second, -1);
  if (--per_user_[it->second.uid] == 0) per_user_.erase(it->second.uid);
  processes_.erase(it);
}

absl::StatusOr<KinetoProcess*> KinetoProcessRegistry::Touch(
    const KinetoSender& sender, absl::Time now) {
  const VerifiedProcess& verified = sender.process;
  auto it = processes_.find(verified.host_pid);
  if (it != processes_.end() && it->second.uid != verified.uid) {
    // The pid was reused by another user's process: the old one is gone.
    Erase(it);
    it = processes_.end();
  }
  if (it == processes_.end()) {
    if (size() >= kMaxKinetoProcesses) {
      return absl::ResourceExhaustedError(base::StrCat(
          "pid ", verified.host_pid, " (uid ", verified.uid, ") refused: ",
          kMaxKinetoProcesses, " Kineto processes are registered, the limit"));
    }
    if (per_user_[verified.uid] >= kMaxKinetoProcessesPerUser) {
      return absl::ResourceExhaustedError(
          base::StrCat("pid ", verified.host_pid, " refused: uid ",
                       verified.uid, " has ", kMaxKinetoProcessesPerUser,
                       " Kineto processes registered, the limit for one user"));
    }
    ++per_user_[verified.uid];
    it = processes_.try_emplace(verified.host_pid).first;
    KinetoProcess& made = it->second;
    made.host_pid = verified.host_pid;
    made.uid = verified.uid;
    made.first_seen = now;
    made.job = "0";
    Count(made, +1);
  }
  KinetoProcess& process = it->second;
  process.pid = verified.pid;
  process.last_seen = now;
  if (!sender.job.empty() && sender.job != process.job) {
    Count(process, -1);
    process.job = sender.job;
    Count(process, +1);
  }
  return &process;
}

absl::StatusOr<int32_t> KinetoProcessRegistry::Register(
    const KinetoSender& sender, int32_t gpu, absl::Time now) {
  absl::StatusOr<KinetoProcess*> process = Touch(sender, now);
  if (!process.ok()) return process.status();
  if ((*process)->gpu != gpu) {
    Count(**process, -1);
    (*process)->gpu = gpu;
    Count(**process, +1);
  }
  return per_job_gpu_[{(*process)->job, gpu}];
}

absl::StatusOr<KinetoProcessRegistry::PollAnswer> KinetoProcessRegistry::Poll(
    const KinetoSender& sender, int32_t config_type,
    std::vector<int32_t> ancestors, absl::Time now) {
  absl::StatusOr<KinetoProcess*> process = Touch(sender, now);
  if (!process.ok()) return process.status();
  (*process)->ancestors = std::move(ancestors);
  PollAnswer answer;
  KinetoProcessCapture& capture = (*process)->capture;
  if ((config_type & kKinetoActivitiesConfig) == 0 || capture.config.empty()) {
    return answer;
  }
  answer.config = std::exchange(capture.config, "");
  answer.capture_id = capture.capture_id;
  return answer;
}

CaptureArming KinetoProcessRegistry::Select(std::string_view job) const {
  CaptureArming selected;
  for (const auto& [host_pid, process] : processes_) {
    if (!job.empty() && process.job != job) continue;
    (process.capturing() ? selected.busy : selected.armed).push_back(host_pid);
  }
  return selected;
}

bool KinetoProcessRegistry::Arm(int32_t host_pid,
                                KinetoProcessCapture capture) {
  auto it = processes_.find(host_pid);
  if (it == processes_.end() || it->second.capturing()) return false;
  it->second.capture = std::move(capture);
  return true;
}

void KinetoProcessRegistry::Restore(const VerifiedProcess& process,
                                    KinetoProcessCapture capture,
                                    absl::Time now) {
  absl::StatusOr<KinetoProcess*> known =
      Touch({.process = process, .job = ""}, now);
  if (known.ok()) (*known)->capture = std::move(capture);
}

std::vector<int32_t> KinetoProcessRegistry::Cancel(
    std::string_view capture_id) {
  std::vector<int32_t> freed;
  for (auto& [host_pid, process] : processes_) {
    if (process.capture.capture_id != capture_id) continue;
    if (process.capture.config.empty()) {
      process.capture.cancelled = true;  // taken: kineto holds it
      continue;
    }
    process.capture = {};
    freed.push_back(host_pid);
  }
  return freed;
}

std::vector<int32_t> KinetoProcessRegistry::SettleCaptures(
    absl::Time now,
    const std::function<bool(const std::string& trace_file)>& written) {
  std::vector<int32_t> ended;
  for (auto& [host_pid, process] : processes_) {
    if (!process.capturing()) continue;
    // A config not yet taken cannot have been written.
    const bool done =
        process.capture.config.empty() && written(process.capture.trace_file);
    if (!done && now < process.capture.deadline) continue;
    process.capture = {};
    ended.push_back(host_pid);
  }
  return ended;
}

std::vector<int32_t> KinetoProcessRegistry::ForgetIdle(absl::Time now) {
  std::vector<int32_t> forgotten;
  for (auto it = processes_.begin(); it != processes_.end();) {
    auto next = std::next(it);
    if (!it->second.capturing() &&
        now - it->second.last_seen > kKinetoKeepAlive) {
      forgotten.push_back(it->first);
      Erase(it);
    }
    it = next;
  }
  return forgotten;
}

bool KinetoProcessRegistry::AnyCapturing() const {
  for (const auto& [host_pid, process] : processes_) {
    if (process.capturing()) return true;
  }
  return false;
}

std::vector<KinetoProcess> KinetoProcessRegistry::Processes() const {
  std::vector<KinetoProcess> all;
  all.reserve(processes_.size());
  for (const auto& [host_pid, process] : processes_) all.push_back(process);
  return all;
}

}  // namespace profdiff::agent
