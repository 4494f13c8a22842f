// The `events` table filled beside the acknowledged path, not on it. Every
// read of the store counts a chunk through its ledger row, whose batch holds
// the chunk's events, so the `events` rows are a copy for SQL users: a chunk
// is durable once its ledger row is. Inserting each group commit's event rows
// with it made a part of ~30 files per commit, and those parts' merges were
// most of what the servers did at a thousand ranks. The mirror gathers the
// rows of the chunks whose ledger rows its shard stored and inserts them every
// second (or at `flush_bytes`), then a marker row per chunk
// (`events_stored`). Rows a replica held when it died, or could not store,
// are made again from the ledger (ClickHouseStore::RepairEventRows: ledger
// rows without a marker). Thread-safe.
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_EVENTS_MIRROR_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_EVENTS_MIRROR_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/status/status.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

#include "aggregator/clickhouse/http_client.h"

namespace profdiff::aggregator::clickhouse {

struct EventsMirrorOptions {
  absl::Duration interval = absl::Seconds(1);
  // Flush sooner past this, and insert at most this in one block. At 64 MiB
  // the servers took 1-6 s a flush under load while the next gathered, and
  // the aggregator held ~200 MiB more, for no more ingest.
  size_t flush_bytes = size_t{16} << 20;
  // Rows held past this (a shard refusing them) are dropped, left for the
  // repair from the ledger, rather than grow without bound.
  size_t max_bytes = size_t{512} << 20;
};

class EventsMirror {
 public:
  explicit EventsMirror(const HttpClient* shard,
                        EventsMirrorOptions options = {});
  ~EventsMirror();  // Stop()s
  EventsMirror(const EventsMirror&) = delete;
  EventsMirror& operator=(const EventsMirror&) = delete;

  // The chunk's place in the table's order: (run, worker, span, seq).
  using Order = std::tuple<std::string, std::string, std::string, int64_t>;
  // Takes one chunk's event rows (a Native block) and its marker row
  // (RowBinary), once its ledger row is stored on this shard.
  void Add(Order order, std::string events, std::string marker)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Inserts what is held now; an error leaves it held (for the next try).
  absl::Status Flush() ABSL_LOCKS_EXCLUDED(mu_, flush_mu_);
  // One last flush, and the thread ends; later Adds are dropped (the repair
  // makes them). Idempotent.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);
  // Forgets what is held, as a replica that died would (for tests).
  void DropForTesting() ABSL_LOCKS_EXCLUDED(mu_);
  // While held, the thread does not flush (Flush and Stop still do), so a test
  // knows what is held.
  void HoldForTesting(bool hold) ABSL_LOCKS_EXCLUDED(mu_);

  int64_t chunks_stored() const ABSL_LOCKS_EXCLUDED(mu_);
  int64_t chunks_dropped() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct HeldChunk {
    Order order;
    std::string events;
    std::string marker;
    size_t bytes() const { return events.size() + marker.size(); }
  };
  struct Held {
    std::deque<HeldChunk> chunks;  // oldest first
    size_t bytes = 0;              // of `chunks`
    // Markers whose rows are stored but which a flush could not store.
    std::vector<std::string> markers_only;
  };
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  // Puts back what a failed flush took (its chunks from `from` on, and its
  // markers of stored rows), before what came since.
  void Restore(Held taken, size_t from) ABSL_LOCKS_EXCLUDED(mu_);
  // Forgets what is held, counting its chunks dropped.
  void DropHeld() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const HttpClient* shard_;
  const EventsMirrorOptions options_;
  absl::Mutex flush_mu_;  // one flush at a time, in order
  mutable absl::Mutex mu_;
  Held held_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool held_for_testing_ ABSL_GUARDED_BY(mu_) = false;
  int64_t stored_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
  std::jthread thread_;
};

}  // namespace profdiff::aggregator::clickhouse

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_EVENTS_MIRROR_H_
