#include "aggregator/clickhouse/shard_writer.h"

#include <absl/synchronization/notification.h>

namespace profdiff::aggregator::clickhouse {

// A waiting Write: lives on its caller's stack until `done` is notified.
struct ShardWriter::Pending {
  const ChunkRows* rows;
  absl::Status status;
  absl::Notification done;
};

ShardWriter::ShardWriter(const HttpClient* shard, size_t max_group_bytes)
    : shard_(shard), max_group_bytes_(max_group_bytes), thread_([this] { Run(); }) {}

ShardWriter::~ShardWriter() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
}

absl::Status ShardWriter::Write(const ChunkRows& rows) {
  Pending pending{&rows, absl::OkStatus(), {}};
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return absl::UnavailableError("the aggregator is shutting down");
    queue_.push_back(&pending);
  }
  pending.done.WaitForNotification();
  return pending.status;
}

void ShardWriter::Run() {
  for (;;) {
    std::vector<Pending*> group;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](ShardWriter* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            return self->stopping_ || !self->queue_.empty();
          },
          this));
      if (queue_.empty()) return;  // stopping, nothing left
      size_t bytes = 0;
      size_t taken = 0;
      while (taken < queue_.size() && (taken == 0 || bytes < max_group_bytes_)) {
        bytes += queue_[taken]->rows->events.size() + queue_[taken]->rows->ledger.size();
        ++taken;
      }
      group.assign(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(taken));
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(taken));
    }
    const absl::Status status = Commit(group);
    for (Pending* pending : group) {
      pending->status = status;
      pending->done.Notify();
    }
  }
}

absl::Status ShardWriter::Commit(const std::vector<Pending*>& group) {
  // One chunk alone needs no copy.
  std::string names, events, ledger;
  const bool alone = group.size() == 1;
  if (!alone) {
    for (const Pending* pending : group) {
      names += pending->rows->names;
      events += pending->rows->events;
      ledger += pending->rows->ledger;
    }
  }
  const ChunkRows& rows = *group.front()->rows;
  // The ledger last: a chunk counts once its ledger row is stored, and only then.
  absl::Status status = shard_->Insert("INSERT INTO names_local FORMAT RowBinary", alone ? rows.names : names);
  if (status.ok()) status = shard_->Insert("INSERT INTO events_local FORMAT RowBinary", alone ? rows.events : events);
  if (status.ok()) status = shard_->Insert("INSERT INTO chunks_local FORMAT RowBinary", alone ? rows.ledger : ledger);
  return status;
}

}  // namespace profdiff::aggregator::clickhouse
