#include "agent/kineto_process_registry.h"

#include <utility>

namespace profdiff::agent {

KinetoProcess& KinetoProcessRegistry::Touch(int32_t pid, int64_t job_id,
                                            std::string_view environment_job,
                                            absl::Time now) {
  auto [it, inserted] = processes_.try_emplace(pid);
  KinetoProcess& process = it->second;
  if (inserted) {
    process.pid = pid;
    process.first_seen = now;
  }
  // A job sent wins, then one found in the environment (a registration finds
  // none; the first poll may).
  if (job_id != 0) {
    process.job = std::to_string(job_id);
  } else if (!environment_job.empty()) {
    process.job = std::string(environment_job);
  } else if (process.job.empty()) {
    process.job = "0";
  }
  process.last_seen = now;
  return process;
}

int32_t KinetoProcessRegistry::Register(const KinetoRegistration& registration,
                                        std::string_view environment_job,
                                        absl::Time now) {
  KinetoProcess& process =
      Touch(registration.pid, registration.job_id, environment_job, now);
  process.gpu = registration.gpu;
  int32_t same = 0;
  for (const auto& [pid, other] : processes_) {
    if (other.job == process.job && other.gpu == process.gpu) ++same;
  }
  return same;
}

std::string KinetoProcessRegistry::Poll(const KinetoPoll& poll,
                                        std::string_view environment_job,
                                        absl::Time now) {
  KinetoProcess& process =
      Touch(poll.pids.front(), poll.job_id, environment_job, now);
  process.ancestors.assign(poll.pids.begin() + 1, poll.pids.end());
  if ((poll.config_type & kKinetoActivitiesConfig) == 0) return "";
  return std::exchange(process.config, "");
}

CaptureArming KinetoProcessRegistry::Arm(
    std::string_view job, std::string_view capture_id, absl::Time deadline,
    const std::function<KinetoCaptureConfig(const KinetoProcess&)>&
        config_for) {
  CaptureArming arming;
  for (auto& [pid, process] : processes_) {
    if (!job.empty() && process.job != job) continue;
    if (process.capturing()) {
      arming.busy.push_back(pid);
      continue;
    }
    KinetoCaptureConfig capture = config_for(process);
    process.capture_id = std::string(capture_id);
    process.config = std::move(capture.config);
    process.trace_file = std::move(capture.trace_file);
    process.capture_deadline = deadline;
    arming.armed.push_back(pid);
  }
  return arming;
}

std::vector<int32_t> KinetoProcessRegistry::SettleCaptures(
    absl::Time now,
    const std::function<bool(const std::string& trace_file)>& written) {
  std::vector<int32_t> ended;
  for (auto& [pid, process] : processes_) {
    if (!process.capturing()) continue;
    // A config not yet taken cannot have been written.
    const bool done = process.config.empty() && written(process.trace_file);
    if (!done && now < process.capture_deadline) continue;
    process.capture_id.clear();
    process.config.clear();
    process.trace_file.clear();
    ended.push_back(pid);
  }
  return ended;
}

std::vector<int32_t> KinetoProcessRegistry::ForgetIdle(absl::Time now) {
  std::vector<int32_t> forgotten;
  for (auto it = processes_.begin(); it != processes_.end();) {
    if (now - it->second.last_seen > kKinetoKeepAlive) {
      forgotten.push_back(it->first);
      it = processes_.erase(it);
    } else {
      ++it;
    }
  }
  return forgotten;
}

bool KinetoProcessRegistry::AnyCapturing() const {
  for (const auto& [pid, process] : processes_) {
    if (process.capturing()) return true;
  }
  return false;
}

std::vector<KinetoProcess> KinetoProcessRegistry::Processes() const {
  std::vector<KinetoProcess> all;
  all.reserve(processes_.size());
  for (const auto& [pid, process] : processes_) all.push_back(process);
  return all;
}

}  // namespace profdiff::agent
