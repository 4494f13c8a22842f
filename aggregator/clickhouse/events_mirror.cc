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
  held_.bytes += events.size() + marker.size();
  held_.orders.push_back(std::move(order));
  held_.events.push_back(std::move(events));
  held_.markers.push_back(std::move(marker));
  while (held_.bytes > options_.max_bytes && !held_.markers.empty()) {
    // The oldest first; their ledger rows have them.
    held_.bytes -= held_.events.front().size() + held_.markers.front().size();
    held_.orders.erase(held_.orders.begin());
    held_.events.erase(held_.events.begin());
    held_.markers.erase(held_.markers.begin());
    if (dropped_++ % 1000 == 0) {
      PD_LOG(WARNING,
             "events rows of %d chunks dropped (more than %d bytes held for "
             "shard %s); the repair makes them from the ledger",
             dropped_, options_.max_bytes, shard_->address());
    }
  }
}

absl::Status EventsMirror::Flush() {
  absl::MutexLock flush_lock(&flush_mu_);
  const absl::Time start = absl::Now();
  Held taken;
  std::vector<std::string> markers_only;
  {
    absl::MutexLock lock(&mu_);
    std::swap(taken, held_);
    std::swap(markers_only, markers_only_);
  }
  // Markers whose rows an earlier flush stored first, then slices of at most
  // flush_bytes (a failed insert of one block stores nothing; ClickHouse cuts
  // blocks at a million rows, which 16 MiB of rows never reach): each
  // slice's rows, then its markers. A marker says the chunk's rows are stored.
  absl::Status status =
      markers_only.empty()
          ? absl::OkStatus()
          : shard_->Insert("INSERT INTO events_stored_local FORMAT RowBinary",
                           Pieces(markers_only, 0, markers_only.size()));
  if (!status.ok()) {
    std::swap(taken.markers_only, markers_only);
    Restore(std::move(taken), 0);
    return status;
  }
  // In the table's order, so the server's block (the chunks' blocks squashed
  // into one) is sorted already: sorting a million rows of string keys was
  // much of an insert.
  std::vector<size_t> by_order(taken.markers.size());
  for (size_t i = 0; i < by_order.size(); ++i) by_order[i] = i;
  std::sort(by_order.begin(), by_order.end(), [&](size_t a, size_t b) {
    return taken.orders[a] < taken.orders[b];
  });
  Held sorted;
  sorted.bytes = taken.bytes;
  sorted.markers_only = std::move(taken.markers_only);
  for (const size_t i : by_order) {
    sorted.orders.push_back(std::move(taken.orders[i]));
    sorted.events.push_back(std::move(taken.events[i]));
    sorted.markers.push_back(std::move(taken.markers[i]));
  }
  taken = std::move(sorted);
  size_t begin = 0;
  while (begin < taken.markers.size()) {
    size_t end = begin;
    size_t bytes = 0;
    while (end < taken.markers.size() &&
           (end == begin ||
            bytes + taken.events[end].size() <= options_.flush_bytes)) {
      bytes += taken.events[end].size();
      ++end;
    }
    const std::vector<std::string_view> events =
        Pieces(taken.events, begin, end);
    status = events.empty() ? absl::OkStatus()
                            : shard_->Insert(kInsertEventBlocks, events);
    if (!status.ok()) break;
    status = shard_->Insert("INSERT INTO events_stored_local FORMAT RowBinary",
                            Pieces(taken.markers, begin, end));
    if (!status.ok()) {
      // The rows are stored: only the markers are tried again.
      for (size_t i = begin; i < end; ++i)
        taken.markers_only.push_back(std::move(taken.markers[i]));
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
          shard_->address(), begin, taken.markers.size(), taken.bytes,
          absl::ToDoubleMilliseconds(absl::Now() - start), status.ToString());
  if (!status.ok()) Restore(std::move(taken), begin);
  return status;
}

std::vector<std::string_view> EventsMirror::Pieces(
    const std::vector<std::string>& rows, size_t begin, size_t end) {
  std::vector<std::string_view> out;
  out.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    if (!rows[i].empty()) out.push_back(rows[i]);
  }
  return out;
}

void EventsMirror::Restore(Held taken, size_t from) {
  absl::MutexLock lock(&mu_);
  // Held again, before what came since, for the next try.
  Held restored;
  for (size_t i = from; i < taken.markers.size(); ++i) {
    restored.bytes += taken.events[i].size() + taken.markers[i].size();
    restored.orders.push_back(std::move(taken.orders[i]));
    restored.events.push_back(std::move(taken.events[i]));
    restored.markers.push_back(std::move(taken.markers[i]));
  }
  for (size_t i = 0; i < held_.markers.size(); ++i) {
    restored.orders.push_back(std::move(held_.orders[i]));
    restored.events.push_back(std::move(held_.events[i]));
    restored.markers.push_back(std::move(held_.markers[i]));
  }
  restored.bytes += held_.bytes;
  held_ = std::move(restored);
  for (std::string& marker : taken.markers_only)
    markers_only_.push_back(std::move(marker));
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
  dropped_ += static_cast<int64_t>(held_.markers.size());
  held_ = {};
  markers_only_.clear();
}

void EventsMirror::HoldForTesting(bool hold) {
  absl::MutexLock lock(&mu_);
  held_for_testing_ = hold;
}

void EventsMirror::DropForTesting() {
  absl::MutexLock lock(&mu_);
  dropped_ += static_cast<int64_t>(held_.markers.size());
  held_ = {};
  markers_only_.clear();
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
