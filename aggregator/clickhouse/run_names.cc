#include "aggregator/clickhouse/run_names.h"

namespace profdiff::aggregator::clickhouse {

std::vector<bool> RunNames::Claim(const std::string& run,
                                  const std::vector<uint64_t>& ids) {
  std::vector<bool> send(ids.size(), true);
  absl::MutexLock lock(&mu_);
  if (ids_ + ids.size() > max_ids_) {
    runs_.clear();  // bounded: everything is sent once more
    ids_ = 0;
  }
  auto& names = runs_[run];
  for (size_t i = 0; i < ids.size(); ++i) {
    const auto [it, added] = names.try_emplace(ids[i], State::kInFlight);
    if (added) ++ids_;
    send[i] = it->second != State::kStored;
  }
  return send;
}

void RunNames::Stored(const std::string& run,
                      const std::vector<uint64_t>& ids) {
  absl::MutexLock lock(&mu_);
  auto& names = runs_[run];
  for (const uint64_t id : ids) {
    const auto [it, added] = names.insert_or_assign(id, State::kStored);
    if (added) ++ids_;
  }
}

void RunNames::Failed(const std::string& run,
                      const std::vector<uint64_t>& ids) {
  absl::MutexLock lock(&mu_);
  auto names = runs_.find(run);
  if (names == runs_.end()) return;
  for (const uint64_t id : ids) {
    auto it = names->second.find(id);
    if (it != names->second.end() && it->second == State::kInFlight) {
      names->second.erase(it);
      --ids_;
    }
  }
}

size_t RunNames::ids() const {
  absl::MutexLock lock(&mu_);
  return ids_;
}

}  // namespace profdiff::aggregator::clickhouse
