#include "aggregator/clickhouse/events_mirror.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include <absl/time/clock.h>

#include "aggregator/clickhouse/event_rows.h"
#include "base/log.h"

namespace profdiff::aggregator::clickhouse {

EventsMirror::EventsMirror(const HttpClient* shard, EventsMirrorOptions options)
    : shard_(shard), options_(options), thread_([this] { Run(); }) {}

EventsMirror::~EventsMirror() { Stop(); }

void EventsMirror::Add(Order order, std::string events, std::string marker) {
  absl::MutexLock lock(&mu_);
  if (stopping_) {
    ++dropped_;
    return;
  }
  held_.chunks.push_back(
      {std::move(order), std::move(events), std::move(marker)});
  held_.bytes += held_.chunks.back().bytes();
  while (held_.bytes > options_.max_bytes && !held_.chunks.empty()) {
    // The oldest first; their ledger rows have them.
    held_.bytes -= held_.chunks.front().bytes();
    held_.chunks.pop_front();
    if (dropped_++ % 1000 == 0) {
      PD_LOG(WARNING,
             "events rows of %d chunks dropped (more than %d bytes held for "
             "shard %s); the repair makes them from the ledger",
             dropped_, options_.max_bytes, shard_->address());
    }
  }
}

namespace {

// The non-empty `rows` of chunks [begin, end), for one insert.
template <typename Chunks>
std::vector<std::string_view> Pieces(const Chunks& chunks, size_t begin,
                                     size_t end,
                                     std::string Chunks::value_type::*rows) {
  std::vector<std::string_view> out;
  out.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    if (!(chunks[i].*rows).empty()) out.push_back(chunks[i].*rows);
  }
  return out;
}

}  // namespace

absl::Status EventsMirror::Flush() {
  absl::MutexLock flush_lock(&flush_mu_);
  const absl::Time start = absl::Now();
  Held taken;
  {
    absl::MutexLock lock(&mu_);
    std::swap(taken, held_);
  }
  // Markers whose rows an earlier flush stored first, then slices of at most
  // flush_bytes (a failed insert of one block stores nothing; ClickHouse cuts
  // blocks at a million rows, which 16 MiB of rows never reach): each
  // slice's rows, then its markers. A marker says the chunk's rows are stored.
  absl::Status status =
      taken.markers_only.empty()
          ? absl::OkStatus()
          : shard_->Insert(
                "INSERT INTO events_stored_local FORMAT RowBinary",
                std::vector<std::string_view>(taken.markers_only.begin(),
                                              taken.markers_only.end()));
  if (!status.ok()) {
    Restore(std::move(taken), 0);
    return status;
  }
  taken.markers_only.clear();
  // In the table's order, so the server's block (the chunks' blocks squashed
  // into one) is sorted already: sorting a million rows of string keys was
  // much of an insert.
  std::sort(
      taken.chunks.begin(), taken.chunks.end(),
      [](const HeldChunk& a, const HeldChunk& b) { return a.order < b.order; });
  size_t begin = 0;
  while (begin < taken.chunks.size()) {
    size_t end = begin;
    size_t bytes = 0;
    while (end < taken.chunks.size() &&
           (end == begin ||
            bytes + taken.chunks[end].events.size() <= options_.flush_bytes)) {
      bytes += taken.chunks[end].events.size();
      ++end;
    }
    const std::vector<std::string_view> events =
        Pieces(taken.chunks, begin, end, &HeldChunk::events);
    status = events.empty() ? absl::OkStatus()
                            : shard_->Insert(kInsertEventBlocks, events);
    if (!status.ok()) break;
    status =
        shard_->Insert("INSERT INTO events_stored_local FORMAT RowBinary",
                       Pieces(taken.chunks, begin, end, &HeldChunk::marker));
    if (!status.ok()) {
      // The rows are stored: only the markers are tried again.
      for (size_t i = begin; i < end; ++i) {
        taken.markers_only.push_back(std::move(taken.chunks[i].marker));
      }
      begin = end;
      break;
    }
    {
      absl::MutexLock lock(&mu_);
      stored_ += static_cast<int64_t>(end - begin);
    }
    begin = end;
  }
  PD_VLOG(1, "events mirror %s: %d of %d chunks (%d bytes), %.1f ms: %s",
          shard_->address(), begin, taken.chunks.size(), taken.bytes,
          absl::ToDoubleMilliseconds(absl::Now() - start), status.ToString());
  if (!status.ok()) Restore(std::move(taken), begin);
  return status;
}

void EventsMirror::Restore(Held taken, size_t from) {
  absl::MutexLock lock(&mu_);
  // Held again, before what came since, for the next try.
  for (size_t i = taken.chunks.size(); i > from; --i) {
    held_.bytes += taken.chunks[i - 1].bytes();
    held_.chunks.push_front(std::move(taken.chunks[i - 1]));
  }
  for (std::string& marker : taken.markers_only)
    held_.markers_only.push_back(std::move(marker));
}

void EventsMirror::DropHeld() {
  dropped_ += static_cast<int64_t>(held_.chunks.size());
  held_ = {};
}

void EventsMirror::Run() {
  for (bool last = false; !last;) {
    {
      absl::MutexLock lock(&mu_);
      const auto due = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ ||
               (held_.bytes >= options_.flush_bytes && !held_for_testing_);
      };
      mu_.AwaitWithTimeout(absl::Condition(&due), options_.interval);
      last = stopping_;
      if (held_for_testing_ && !last) continue;
    }
    if (const absl::Status status = Flush(); !status.ok()) {
      PD_LOG(WARNING,
             "events rows for shard %s not stored now (kept; the ledger "
             "has their chunks): %s",
             shard_->address(), status.ToString());
    }
  }
}

void EventsMirror::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
  absl::MutexLock lock(&mu_);
  DropHeld();
}

void EventsMirror::HoldForTesting(bool hold) {
  absl::MutexLock lock(&mu_);
  held_for_testing_ = hold;
}

void EventsMirror::DropForTesting() {
  absl::MutexLock lock(&mu_);
  DropHeld();
}

int64_t EventsMirror::chunks_stored() const {
  absl::MutexLock lock(&mu_);
  return stored_;
}

int64_t EventsMirror::chunks_dropped() const {
  absl::MutexLock lock(&mu_);
  return dropped_;
}

}  // namespace profdiff::aggregator::clickhouse
