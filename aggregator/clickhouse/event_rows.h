// The `events` table's rows of one chunk, as its stream sends them and as the
// repair makes them again from the chunk's ledger batch: byte for byte the
// same, so a read of the table cannot tell which made them. They are one block
// of ClickHouse's Native format, column after column: the server takes each
// column whole, where RowBinary had it parse every field of every row (that
// parsing was an eighth of both cores at a thousand ranks).
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_EVENT_ROWS_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_EVENT_ROWS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "profdiff/v1/trace.pb.h"

namespace profdiff::aggregator::clickhouse {

// Where a chunk's rows belong: (run, worker, span, seq) and the attempt that
// stored its ledger row.
struct ChunkKey {
  std::string_view run;
  std::string_view worker;
  std::string_view span;
  int64_t seq = 0;
  uint64_t attempt = 0;
};

// The statement that inserts blocks made by AppendEventBlock.
inline constexpr char kInsertEventBlocks[] =
    "INSERT INTO events_local FORMAT Native";

// Appends the events of `batch` to `out` as one Native block of the events
// table's columns (nothing for a batch without events); `name_ids[i]` is the
// names table id of batch.strings(i). Returns where in `out` the block's
// `attempt` column starts: the chunk's attempt, 8 bytes little-endian per
// event, for a retry to change in place.
size_t AppendEventBlock(const ChunkKey& key, const v1::EventBatch& batch,
                        const std::vector<uint64_t>& name_ids,
                        std::string& out);
// Appends the chunk's `events_stored` row (RowBinary) to `out`.
void AppendEventMarker(const ChunkKey& key, std::string& out);

}  // namespace profdiff::aggregator::clickhouse

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_EVENT_ROWS_H_
