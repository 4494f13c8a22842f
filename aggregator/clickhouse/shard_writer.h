// Group commit of chunk rows into one ClickHouse shard. Every INSERT makes a
// new part on disk that ClickHouse later merges, so a part per chunk (per
// stream, per table) would spend the servers on file creation and merges:
// CLICKHOUSE.md measured 1 k-row inserts at a tenth of the rate of 100 k-row
// ones. Streams hand their chunks' rows to the shard's writer thread without
// waiting (several chunks of one stream may be queued); it sends what has
// gathered as one insert per table (span rows, names, then the ledger),
// reports the result to each chunk's callback, and hands the stored chunks'
// event rows to the shard's EventsMirror (events_mirror.h), which inserts them
// apart. The CLOSED rows of spans closed with their last chunk must follow
// that chunk's ledger row: they go in the next commit's span rows, which come
// first in it, or alone when no chunk waits.
//
// Fewer, larger parts: commits that start as soon as rows wait adapt to the
// inserts' speed, so making a commit cheaper made commits more frequent, not
// parts fewer. When chunks are already waiting once a commit is done and
// answered (streams are writing faster than one commit at a time), the next
// commit starts `commit_interval` after the last one started; a chunk that
// finds the writer idle goes at once, and so do span rows alone.
// At a thousand ranks, 150 ms halved the inserts and cut the servers' CPU an
// event by a quarter (docs/thousand-ranks.md).
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_SHARD_WRITER_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_SHARD_WRITER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <tuple>

#include <absl/base/thread_annotations.h>
#include <absl/functional/any_invocable.h>
#include <absl/functional/function_ref.h>
#include <absl/status/status.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

#include "aggregator/clickhouse/events_mirror.h"
#include "aggregator/clickhouse/http_client.h"

namespace profdiff::aggregator::clickhouse {

// One chunk's rows, for the names, events (a Native block: event_rows.h),
// events_stored and chunks (ledger) tables, or a span's state row (spans
// table) alone; any may be empty. The ledger and marker rows carry the chunk's
// attempt at the same offset (`attempt_offset`) and the events block has an
// attempt column (`event_count` of them from `events_attempts_at`), so a retry
// on another shard changes the attempt in place instead of encoding the chunk
// again.
struct ChunkRows {
  std::string names;
  std::string spans;
  // Not part of the commit: handed to the shard's EventsMirror once the
  // ledger row is stored, with the chunk's `events_stored` row.
  std::string events;
  std::string event_marker;
  std::string ledger;
  // Span CLOSED rows stored after the ledger rows, with the next commit's
  // span rows: a span closed with its last chunk (ShardWriter::AddWhileQueued),
  // whose row must never be stored without that chunk's ledger row.
  std::string closed_spans;
  size_t event_count = 0;
  size_t events_attempts_at = 0;
  size_t attempt_offset = 0;
  // The chunk's place in the events and ledger tables' order (run, worker,
  // span, seq): a group sent in that order is a block ClickHouse need not sort.
  std::tuple<std::string, std::string, std::string, int64_t> order;

  void SetAttempt(uint64_t attempt);
};

class ShardWriter {
 public:
  using Done = absl::AnyInvocable<void(absl::Status)>;

  // `max_group_bytes` bounds one group's rows (the writer takes at least one
  // chunk); `max_queued_bytes` the rows waiting, beyond which Submit waits
  // (backpressure on streams).
  // `events` takes the event rows of the chunks whose ledger rows are stored
  // (none, and no rows made, when the store fills no `events` table).
  // `commit_interval`: see above (0: no wait); a commit waits no longer once
  // `max_group_bytes` are queued.
  ShardWriter(const HttpClient* shard, EventsMirror* events,
              absl::Duration commit_interval,
              size_t max_group_bytes = size_t{64} << 20,
              size_t max_queued_bytes = size_t{256} << 20);
  ~ShardWriter();  // Stop()s
  // Commits what is queued and ends the writer thread; later Submits fail at
  // once. Idempotent.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);
  ShardWriter(const ShardWriter&) = delete;
  ShardWriter& operator=(const ShardWriter&) = delete;

  // Queues `rows` to be stored with whatever other chunks are waiting; `done`
  // runs on the writer thread once the ledger rows are stored (OK; for rows
  // with CLOSED rows, once those are stored too) or the group failed
  // (Unavailable when the shard did not answer). `rows` is not touched
  // after `done` starts. When more than max_queued_bytes wait, Submit first
  // waits for room unless `wait_for_room` is false (a failover from another
  // writer's thread, which must not block on this one).
  void Submit(std::shared_ptr<ChunkRows> rows, Done done,
              bool wait_for_room = true) ABSL_LOCKS_EXCLUDED(mu_);
  // Calls `add` on `rows` if they are still queued here, not yet taken into a
  // group commit, and returns whether it did; `add` runs under this writer's
  // lock, so it must not call out.
  bool AddWhileQueued(const ChunkRows* rows,
                      absl::FunctionRef<void(ChunkRows&)> add)
      ABSL_LOCKS_EXCLUDED(mu_);
  // While held, queued rows wait instead of going into a commit (for tests
  // that need rows still queued; the CLOSED rows of chunks committed already
  // still go); Stop commits them all the same.
  void HoldForTesting(bool hold) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Pending {
    std::shared_ptr<ChunkRows> rows;
    Done done;
    size_t bytes = 0;
  };
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  // Stores `group`'s rows, and returns the answer of its inserts through the
  // ledger's. `closing`: chunks of the commit before whose ledger rows are
  // stored and whose CLOSED rows go in this commit's span rows; each is
  // answered (and taken) once that insert is. `group` may be empty.
  absl::Status Commit(std::deque<Pending>& closing, std::deque<Pending>& group);

  const HttpClient* shard_;
  EventsMirror* events_;
  const absl::Duration commit_interval_;
  const size_t max_group_bytes_;
  const size_t max_queued_bytes_;
  absl::Mutex mu_;
  std::deque<Pending> queue_ ABSL_GUARDED_BY(mu_);
  size_t queued_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  size_t queued_chunks_ ABSL_GUARDED_BY(mu_) =
      0;  // queued rows with a ledger row
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool held_ ABSL_GUARDED_BY(mu_) = false;
  std::jthread thread_;
};

}  // namespace profdiff::aggregator::clickhouse

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_SHARD_WRITER_H_
