#include "agent/upload_queue.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

namespace profdiff::agent {

UploadQueue::UploadQueue(const std::vector<std::string>& paths,
                         bool repeats_together, uint64_t max_bytes_out)
    : paths_(paths),
      max_bytes_out_(max_bytes_out),
      failed_(paths.size(), false) {
  std::map<std::string, size_t> group_of;  // absolute path -> groups_ index
  for (size_t i = 0; i < paths.size(); ++i) {
    // A file that cannot be sized fails as UploadPath says; it counts 0.
    std::error_code size_error;
    uint64_t bytes = std::filesystem::file_size(paths[i], size_error);
    if (size_error) bytes = 0;
    if (!repeats_together) {
      groups_.push_back({{i}, bytes});
      continue;
    }
    std::error_code error;
    std::string key =
        std::filesystem::absolute(paths[i], error).lexically_normal().string();
    if (error) key = paths[i];
    const auto [it, added] = group_of.try_emplace(key, groups_.size());
    if (added) groups_.push_back({{}, bytes});  // read once
    groups_[it->second].indices.push_back(i);
  }
}

UploadQueue::Group UploadQueue::Next() {
  absl::MutexLock lock(&mu_);
  if (max_bytes_out_ > 0) {
    // In order: the next group waits for room, and the workers behind it too.
    mu_.Await(absl::Condition(
        +[](UploadQueue* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
          return self->next_ == self->groups_.size() || self->out_ == 0 ||
                 self->bytes_out_ + self->groups_[self->next_].bytes <=
                     self->max_bytes_out_;
        },
        this));
  }
  if (next_ == groups_.size()) return {};
  const Group& group = groups_[next_++];
  bytes_out_ += group.bytes;
  ++out_;
  most_out_ = std::max(most_out_, out_);
  return group;
}

void UploadQueue::Done(const Group& group) {
  absl::MutexLock lock(&mu_);
  bytes_out_ -= group.bytes;
  --out_;
}

void UploadQueue::Record(size_t index, bool acknowledged) {
  absl::MutexLock lock(&mu_);
  failed_[index] = !acknowledged;
}

std::vector<std::string> UploadQueue::Failed() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> failed;
  for (size_t i = 0; i < paths_.size(); ++i) {
    if (failed_[i]) failed.push_back(paths_[i]);
  }
  return failed;
}

int UploadQueue::out() const {
  absl::MutexLock lock(&mu_);
  return out_;
}

int UploadQueue::most_out() const {
  absl::MutexLock lock(&mu_);
  return most_out_;
}

}  // namespace profdiff::agent
