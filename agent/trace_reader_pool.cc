#include "agent/trace_reader_pool.h"

#include <algorithm>
#include <utility>

namespace profdiff::agent {

TraceReaderPool::TraceReaderPool(size_t max_readers)
    : max_readers_(std::max<size_t>(max_readers, 1)) {}

absl::StatusOr<trace::Trace> TraceReaderPool::ReadFile(
    const std::string& path) {
  std::unique_ptr<trace::KinetoReader> reader;
  {
    absl::MutexLock lock(&mu_);
    auto one_is_free = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return !free_.empty() || made_ < max_readers_;
    };
    mu_.Await(absl::Condition(&one_is_free));
    if (free_.empty()) {
      ++made_;
    } else {
      reader = std::move(free_.back());
      free_.pop_back();
    }
  }
  if (reader == nullptr) reader = std::make_unique<trace::KinetoReader>();
  absl::StatusOr<trace::Trace> trace = reader->ReadFile(path);
  absl::MutexLock lock(&mu_);
  free_.push_back(std::move(reader));
  return trace;
}

size_t TraceReaderPool::readers_made() const {
  absl::MutexLock lock(&mu_);
  return made_;
}

}  // namespace profdiff::agent
