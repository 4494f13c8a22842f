#include "aggregator/open_streams.h"

#include "base/str_cat.h"

namespace profdiff::aggregator {

OpenStreams::Slot::~Slot() {
  if (owner_ != nullptr) owner_->Release(agent_);
}

absl::StatusOr<OpenStreams::Slot> OpenStreams::Acquire(
    const std::string& agent_id) {
  absl::MutexLock lock(&mutex_);
  int& open = open_[agent_id];
  if (open >= max_per_agent_) {
    // Unavailable, not ResourceExhausted: the agent retries it with backoff,
    // and the streams a killed agent left half-open are gone by then; a
    // permanent code would fail its files.
    return absl::UnavailableError(
        base::StrCat("agent \"", agent_id, "\" has ", open,
                     " upload streams open, the limit is ", max_per_agent_,
                     " (--max-streams-per-agent); retry once one ends"));
  }
  ++open;
  return Slot(this, agent_id);
}

int OpenStreams::open(const std::string& agent_id) const {
  absl::MutexLock lock(&mutex_);
  const auto found = open_.find(agent_id);
  return found == open_.end() ? 0 : found->second;
}

void OpenStreams::Release(const std::string& agent_id) {
  absl::MutexLock lock(&mutex_);
  const auto found = open_.find(agent_id);
  if (found != open_.end() && --found->second == 0) open_.erase(found);
}

}  // namespace profdiff::aggregator
