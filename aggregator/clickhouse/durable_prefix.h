// Which chunks of a span count as stored on the ClickHouse store. Chunks finish
// on the shard writers in any order (a chunk retried on another shard finishes
// after later ones); a chunk counts once every chunk before it is stored too,
// and a chunk stored twice counts once. Not thread-safe: the lease holding it
// guards it.
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_DURABLE_PREFIX_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_DURABLE_PREFIX_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>

namespace profdiff::aggregator::clickhouse {

class DurablePrefix {
 public:
  // Chunk `sequence`, of `events` events and `bytes` raw batch bytes, is
  // stored.
  void Stored(int64_t sequence, int64_t events, uint64_t bytes);
  // Forgets the chunks stored past a gap: after a failure they come again,
  // after the one that failed.
  void DropAhead() { ahead_.clear(); }

  // Every chunk up to here is stored (-1: none).
  int64_t durable() const { return durable_; }
  // Events and raw bytes of the chunks up to durable().
  int64_t events() const { return events_; }
  uint64_t bytes() const { return bytes_; }
  // Chunks stored past a gap, not counted yet.
  size_t ahead() const { return ahead_.size(); }

 private:
  int64_t durable_ = -1;
  int64_t events_ = 0;
  uint64_t bytes_ = 0;
  std::map<int64_t, std::pair<int64_t, uint64_t>>
      ahead_;  // seq -> (events, bytes)
};

}  // namespace profdiff::aggregator::clickhouse

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_DURABLE_PREFIX_H_
