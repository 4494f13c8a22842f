#include "agent/cupti/nvtx_ranges.h"

#include <utility>

namespace profdiff::agent::cupti {

NvtxRangeRecorder::NvtxRangeRecorder(size_t max_depth, size_t max_open_started)
    : max_depth_(max_depth), max_open_started_(max_open_started) {}

void NvtxRangeRecorder::Push(int64_t thread, uintptr_t domain, uint64_t t_ns,
                             std::string_view message) {
  const StackKey key(thread, domain);
  absl::MutexLock lock(&mu_);
  std::vector<HostRange>& stack = stacks_[key];
  if (stack.size() >= max_depth_) {
    ++overflow_[key];
    ++counters_.dropped;
    return;
  }
  stack.push_back(HostRange{std::string(message), thread, t_ns, 0});
}

std::optional<HostRange> NvtxRangeRecorder::Pop(int64_t thread,
                                                uintptr_t domain,
                                                uint64_t t_ns) {
  const StackKey key(thread, domain);
  absl::MutexLock lock(&mu_);
  if (auto overflow = overflow_.find(key); overflow != overflow_.end()) {
    if (--overflow->second == 0) overflow_.erase(overflow);
    return std::nullopt;  // closes a push that was dropped (counted then)
  }
  auto it = stacks_.find(key);
  if (it == stacks_.end() || it->second.empty()) {
    ++counters_.unmatched_pops;
    return std::nullopt;
  }
  HostRange range = std::move(it->second.back());
  it->second.pop_back();
  if (it->second.empty())
    stacks_.erase(it);  // threads come and go: keep the map small
  range.end_ns = t_ns;
  return range;
}

void NvtxRangeRecorder::Start(uint64_t id, int64_t thread, uint64_t t_ns,
                              std::string_view message) {
  absl::MutexLock lock(&mu_);
  if (started_.size() >= max_open_started_) {
    ++counters_.dropped;
    return;
  }
  started_.insert_or_assign(id,
                            HostRange{std::string(message), thread, t_ns, 0});
}

std::optional<HostRange> NvtxRangeRecorder::End(uint64_t id, uint64_t t_ns) {
  absl::MutexLock lock(&mu_);
  auto it = started_.find(id);
  if (it == started_.end()) {
    ++counters_.unmatched_pops;
    return std::nullopt;
  }
  HostRange range = std::move(it->second);
  started_.erase(it);
  range.end_ns = t_ns;
  return range;
}

NvtxRangeCounters NvtxRangeRecorder::counters() const {
  absl::MutexLock lock(&mu_);
  return counters_;
}

}  // namespace profdiff::agent::cupti
