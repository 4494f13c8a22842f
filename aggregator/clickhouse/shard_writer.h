// Group commit of chunk rows into one ClickHouse shard. Every INSERT makes a new part on disk
// that ClickHouse later merges, so a part per chunk (per stream, per table) would spend the
// servers on merges: CLICKHOUSE.md measured 1 k-row inserts at a tenth of the rate of 100 k-row
// ones. Streams hand their chunk's rows to the shard's writer thread and wait; it sends what has
// gathered meanwhile as one insert per table, the ledger last, and wakes them all with the result.
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_SHARD_WRITER_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_SHARD_WRITER_H_

#include <cstddef>
#include <string>
#include <thread>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/status/status.h>
#include <absl/synchronization/mutex.h>

#include "aggregator/clickhouse/http_client.h"

namespace profdiff::aggregator::clickhouse {

// One chunk's rows in RowBinary, for the names, events and chunks (ledger) tables.
struct ChunkRows {
  std::string names;
  std::string events;
  std::string ledger;
};

class ShardWriter {
 public:
  // `max_group_bytes` bounds one group's rows (the writer takes at least one chunk).
  ShardWriter(const HttpClient* shard, size_t max_group_bytes = size_t{64} << 20);
  ~ShardWriter();  // finishes the group in flight; later Write calls fail
  ShardWriter(const ShardWriter&) = delete;
  ShardWriter& operator=(const ShardWriter&) = delete;

  // Stores `rows` with whatever other chunks are waiting; returns once the ledger rows are
  // stored (OK) or the group failed (Unavailable when the shard did not answer).
  absl::Status Write(const ChunkRows& rows) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Pending;
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status Commit(const std::vector<Pending*>& group);

  const HttpClient* shard_;
  const size_t max_group_bytes_;
  absl::Mutex mu_;
  std::vector<Pending*> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::jthread thread_;
};

}  // namespace profdiff::aggregator::clickhouse

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_SHARD_WRITER_H_
