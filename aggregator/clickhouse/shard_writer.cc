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
                         absl::Duration commit_interval, size_t max_group_bytes,
                         size_t max_queued_bytes)
    : shard_(shard),
      events_(events),
      commit_interval_(commit_interval),
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
      if (!rows->ledger.empty()) ++queued_chunks_;
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
  // Chunks whose ledger rows are stored and whose CLOSED rows are not yet.
  std::deque<Pending> closing;
  absl::Time last_start = absl::InfinitePast();
  for (;;) {
    std::deque<Pending> group;
    {
      absl::MutexLock lock(&mu_);
      if (queued_chunks_ > 0 && commit_interval_ > absl::ZeroDuration()) {
        // Chunks came while the last commit ran and was answered: more are
        // coming. (Span rows alone, a close after its last chunk's ack, do
        // not wait.) A timeout, not a deadline: the clock may step.
        mu_.AwaitWithTimeout(
            absl::Condition(
                +[](ShardWriter* self)
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
                       return self->stopping_ ||
                              self->queued_bytes_ >= self->max_group_bytes_;
                     },
                this),
            std::clamp(last_start + commit_interval_ - absl::Now(),
                       absl::ZeroDuration(), commit_interval_));
      }
      if (closing.empty()) {
        mu_.Await(absl::Condition(
            +[](ShardWriter* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
              return self->stopping_ || (!self->queue_.empty() && !self->held_);
            },
            this));
        if (queue_.empty()) return;  // stopping, nothing left
      }
      // CLOSED rows waiting go with what is queued now, or alone: they wait
      // for more chunks only as the chunks queued with them do.
      size_t bytes = 0;
      while (!queue_.empty() && (!held_ || stopping_) &&
             (group.empty() || bytes < max_group_bytes_)) {
        bytes += queue_.front().bytes;
        if (!queue_.front().rows->ledger.empty()) --queued_chunks_;
        group.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      queued_bytes_ -= bytes;
    }
    last_start = absl::Now();
    const absl::Status result = Commit(closing, group);
    for (Pending& pending : group) {
      if (result.ok() && events_ != nullptr) {
        // Stored: its events rows go to the table beside the ack.
        events_->Add(pending.rows->order, std::move(pending.rows->events),
                     std::move(pending.rows->event_marker));
      }
      if (result.ok() && !pending.rows->closed_spans.empty()) {
        closing.push_back(std::move(pending));
        continue;
      }
      pending.rows
          .reset();  // before `done`, which may hand the rows to another writer
      std::move(pending.done)(result);
    }
  }
}

absl::Status ShardWriter::Commit(std::deque<Pending>& closing,
                                 std::deque<Pending>& group) {
  std::sort(group.begin(), group.end(), [](const Pending& a, const Pending& b) {
    return a.rows->order < b.rows->order;
  });
  // Each table's rows are sent from the chunks' own strings, in turn: a
  // group's events were several MB, and joining them was most of the
  // aggregator's copying.
  const auto pieces = [&group](std::string ChunkRows::*table,
                               std::vector<std::string_view> out = {}) {
    for (const Pending& pending : group) {
      const std::string& rows = (*pending.rows).*table;
      if (!rows.empty()) out.push_back(rows);
    }
    return out;
  };
  std::vector<std::string_view> closed_rows;
  closed_rows.reserve(closing.size() + group.size());
  for (const Pending& pending : closing)
    closed_rows.push_back(pending.rows->closed_spans);
  const absl::Time start = absl::Now();
  const auto insert = [this](const char* sql,
                             const std::vector<std::string_view>& rows) {
    return rows.empty() ? absl::OkStatus() : shard_->Insert(sql, rows);
  };
  // Span state rows first (the last commit's CLOSED rows, this one's opens and
  // closes of several streams), then names; the ledger last: a chunk counts
  // once its ledger row is stored, and only then. Most chunks bring no name
  // their stream has not sent: then there is no names insert.
  const absl::Status spans =
      insert("INSERT INTO spans_local FORMAT RowBinary",
             pieces(&ChunkRows::spans, std::move(closed_rows)));
  const size_t closes = closing.size();
  for (Pending& pending : closing) {
    // Its ledger row is stored: a failed CLOSED insert fails only the chunks
    // that carried a CLOSED row.
    pending.rows.reset();
    std::move(pending.done)(spans);
  }
  closing.clear();
  // The group fails with the span rows' insert only when some of them were
  // its own (most chunks carry none).
  const bool own_span_rows = std::any_of(
      group.begin(), group.end(),
      [](const Pending& pending) { return !pending.rows->spans.empty(); });
  absl::Status status = own_span_rows ? spans : absl::OkStatus();
  if (status.ok() && !group.empty()) {
    status = insert("INSERT INTO names_local FORMAT RowBinary",
                    pieces(&ChunkRows::names));
  }
  if (status.ok() && !group.empty()) {
    status = insert("INSERT INTO chunks_local FORMAT RowBinary",
                    pieces(&ChunkRows::ledger));
  }
  PD_VLOG(1, "shard %s: group of %d chunks and %d closes, %.1f ms: %s",
          shard_->address(), group.size(), closes,
          absl::ToDoubleMilliseconds(absl::Now() - start), status.ToString());
  return status;
}

}  // namespace profdiff::aggregator::clickhouse
