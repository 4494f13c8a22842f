#include "aggregator/local/memory_control_store.h"

#include <map>
#include <string>
#include <utility>

#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

namespace profdiff::aggregator {
namespace {

class MemoryControlStore final : public ControlStore {
 public:
  absl::Status PutAgents(const std::vector<v1::AgentStatus>& agents) override {
    absl::MutexLock lock(&mu_);
    for (const v1::AgentStatus& agent : agents) {
      agents_[agent.agent_id()] = agent;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<v1::AgentStatus>> ListAgents(
      absl::Time seen_since) const override {
    const int64_t since = absl::ToUnixMillis(seen_since);
    absl::MutexLock lock(&mu_);
    std::vector<v1::AgentStatus> out;
    for (const auto& [id, agent] : agents_) {
      if (agent.seen_unix_ms() >= since) out.push_back(agent);
    }
    return out;
  }

  absl::Status PutCapture(const v1::Capture& capture) override {
    absl::MutexLock lock(&mu_);
    captures_[capture.capture_id()] = capture;
    return absl::OkStatus();
  }

  absl::StatusOr<std::optional<v1::Capture>> GetCapture(
      std::string_view capture_id) const override {
    absl::MutexLock lock(&mu_);
    auto it = captures_.find(std::string(capture_id));
    if (it == captures_.end()) return std::nullopt;
    return it->second;
  }

  absl::StatusOr<std::vector<v1::Capture>> ListCaptures(
      absl::Time created_since) const override {
    const int64_t since = absl::ToUnixMillis(created_since);
    absl::MutexLock lock(&mu_);
    std::vector<v1::Capture> out;
    for (const auto& [id, capture] : captures_) {
      if (capture.created_unix_ms() >= since) out.push_back(capture);
    }
    return out;
  }

  absl::Status PutAnswer(const v1::CaptureAnswer& answer) override {
    absl::MutexLock lock(&mu_);
    answers_[{answer.capture_id(), answer.agent_id()}] = answer;
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<v1::CaptureAnswer>> ListAnswers(
      std::string_view capture_id) const override {
    absl::MutexLock lock(&mu_);
    std::vector<v1::CaptureAnswer> out;
    for (auto it = answers_.lower_bound({std::string(capture_id), ""});
         it != answers_.end() && it->first.first == capture_id; ++it) {
      out.push_back(it->second);
    }
    return out;
  }

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, v1::AgentStatus> agents_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, v1::Capture> captures_ ABSL_GUARDED_BY(mu_);
  std::map<std::pair<std::string, std::string>, v1::CaptureAnswer> answers_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace

std::unique_ptr<ControlStore> NewMemoryControlStore() {
  return std::make_unique<MemoryControlStore>();
}

}  // namespace profdiff::aggregator
