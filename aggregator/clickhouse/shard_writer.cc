#include "aggregator/clickhouse/shard_writer.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/time/clock.h>

#include "base/log.h"

namespace profdiff::aggregator::clickhouse {
namespace {

size_t RowBytes(const ChunkRows& rows) {
  return rows.names.size() + rows.spans.size() + rows.events.size() +
         rows.event_marker.size() + rows.ledger.size() +
         rows.closed_spans.size();
}

}  // namespace

void ChunkRows::SetAttempt(uint64_t attempt) {
  // RowBinary numbers are little-endian, as this machine's.
  for (size_t i = 0; i < event_count; ++i) {
    const size_t at = events_attempts_at + i * sizeof(attempt);
    if (at + sizeof(attempt) > events.size()) break;
    std::memcpy(events.data() + at, &attempt, sizeof(attempt));
  }
  // The ledger and marker rows start with the same key.
  for (std::string* row : {&ledger, &event_marker}) {
    if (row->size() >= attempt_offset + sizeof(attempt))
      std::memcpy(row->data() + attempt_offset, &attempt, sizeof(attempt));
  }
}

ShardWriter::ShardWriter(const HttpClient* shard, EventsMirror* events,
                         size_t max_group_bytes, size_t max_queued_bytes)
    : shard_(shard),
      events_(events),
      max_group_bytes_(max_group_bytes),
      max_queued_bytes_(max_queued_bytes),
      thread_([this] { Run(); }) {}

ShardWriter::~ShardWriter() { Stop(); }

void ShardWriter::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void ShardWriter::Submit(std::shared_ptr<ChunkRows> rows, Done done,
                         bool wait_for_room) {
  const size_t bytes = RowBytes(*rows);
  {
    absl::MutexLock lock(&mu_);
    if (wait_for_room) {
      mu_.Await(absl::Condition(
          +[](ShardWriter* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            // A chunk bigger than the bound goes alone.
            return self->stopping_ || self->queue_.empty() ||
                   self->queued_bytes_ < self->max_queued_bytes_;
          },
          this));
    }
    if (!stopping_) {
      queued_bytes_ += bytes;
      queue_.push_back({std::move(rows), std::move(done), bytes});
      return;
    }
  }
  done(absl::UnavailableError("the aggregator is shutting down"));
}

bool ShardWriter::AddWhileQueued(const ChunkRows* rows,
                                 absl::FunctionRef<void(ChunkRows&)> add) {
  absl::MutexLock lock(&mu_);
  for (Pending& pending : queue_) {
    if (pending.rows.get() != rows) continue;
    add(*pending.rows);
    const size_t bytes = RowBytes(*pending.rows);
    queued_bytes_ = queued_bytes_ - pending.bytes + bytes;
    pending.bytes = bytes;
    return true;
  }
  return false;
}

void ShardWriter::HoldForTesting(bool hold) {
  absl::MutexLock lock(&mu_);
  held_ = hold;
}

void ShardWriter::Run() {
  for (;;) {
    std::deque<Pending> group;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](ShardWriter* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            return self->stopping_ || (!self->queue_.empty() && !self->held_);
          },
          this));
      if (queue_.empty()) return;  // stopping, nothing left
      size_t bytes = 0;
      while (!queue_.empty() && (group.empty() || bytes < max_group_bytes_)) {
        bytes += queue_.front().bytes;
        group.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      queued_bytes_ -= bytes;
    }
    const CommitResult result = Commit(group);
    for (Pending& pending : group) {
      // A failed CLOSED insert fails only the chunks that carried a CLOSED
      // row: the others' ledger rows are stored.
      const bool closes = !pending.rows->closed_spans.empty();
      if (result.through_ledger.ok() && events_ != nullptr) {
        // Stored: its events rows go to the table beside the ack.
        events_->Add(pending.rows->order, std::move(pending.rows->events),
                     std::move(pending.rows->event_marker));
      }
      pending.rows
          .reset();  // before `done`, which may hand the rows to another writer
      std::move(pending.done)(closes && result.through_ledger.ok()
                                  ? result.closed
                                  : result.through_ledger);
    }
  }
}

ShardWriter::CommitResult ShardWriter::Commit(std::deque<Pending>& group) {
  std::sort(group.begin(), group.end(), [](const Pending& a, const Pending& b) {
    return a.rows->order < b.rows->order;
  });
  // Each table's rows are sent from the chunks' own strings, in turn: a
  // group's events were several MB, and joining them was most of the
  // aggregator's copying.
  const auto pieces = [&group](std::string ChunkRows::*table) {
    std::vector<std::string_view> out;
    for (const Pending& pending : group) {
      const std::string& rows = (*pending.rows).*table;
      if (!rows.empty()) out.push_back(rows);
    }
    return out;
  };
  const absl::Time start = absl::Now();
  const auto insert = [this](const char* sql,
                             const std::vector<std::string_view>& rows) {
    return rows.empty() ? absl::OkStatus() : shard_->Insert(sql, rows);
  };
  // The ledger last: a chunk counts once its ledger row is stored, and only
  // then. Most chunks bring no name their stream has not sent: then there is no
  // names insert. Span state rows (opens and closes of several streams) before
  // the ledger.
  absl::Status status = insert("INSERT INTO names_local FORMAT RowBinary",
                               pieces(&ChunkRows::names));
  if (status.ok()) {
    status = insert("INSERT INTO spans_local FORMAT RowBinary",
                    pieces(&ChunkRows::spans));
  }
  if (status.ok()) {
    status = insert("INSERT INTO chunks_local FORMAT RowBinary",
                    pieces(&ChunkRows::ledger));
  }
  // Spans closed with their last chunk: only once that chunk's ledger row is.
  absl::Status closed;
  if (status.ok()) {
    closed = insert("INSERT INTO spans_local FORMAT RowBinary",
                    pieces(&ChunkRows::closed_spans));
  }
  PD_VLOG(1, "shard %s: group of %d chunks, %.1f ms: %s (closes: %s)",
          shard_->address(), group.size(),
          absl::ToDoubleMilliseconds(absl::Now() - start), status.ToString(),
          closed.ToString());
  return {status, closed};
}

}  // namespace profdiff::aggregator::clickhouse
