#include "aggregator/upload_streams.h"

#include <algorithm>
#include <vector>

namespace profdiff::aggregator {

UploadStreams::UploadStreams(int max_streams, absl::Duration idle_timeout)
    : max_streams_(max_streams), idle_timeout_(idle_timeout) {
  sweeper_ = std::thread([this] {
    const absl::Duration every =
        std::clamp(idle_timeout_ / 4, absl::Milliseconds(10), absl::Seconds(5));
    while (!stop_.WaitForNotificationWithTimeout(every)) Sweep();
  });
}

UploadStreams::~UploadStreams() {
  stop_.Notify();
  sweeper_.join();
}

bool UploadStreams::Add(IdleStream* stream) {
  absl::MutexLock lock(&mu_);
  if (static_cast<int>(streams_.size()) >= max_streams_) return false;
  streams_.insert(stream);
  return true;
}

void UploadStreams::Remove(IdleStream* stream) {
  absl::MutexLock lock(&mu_);
  streams_.erase(stream);
}

int UploadStreams::open() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(streams_.size());
}

void UploadStreams::Sweep() {
  std::vector<absl::AnyInvocable<void()>> ends;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = absl::Now();
    for (IdleStream* stream : streams_) {
      absl::AnyInvocable<void()> end = stream->ExpireIfIdle(now, idle_timeout_);
      if (end) ends.push_back(std::move(end));
    }
  }
  // Ending a stream may remove it from the registry (its OnDone): never under
  // `mu_`.
  for (absl::AnyInvocable<void()>& end : ends) end();
}

}  // namespace profdiff::aggregator
