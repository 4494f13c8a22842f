// The `events` table's rows of one chunk, as its stream sends them and as the
// repair makes them again from the chunk's ledger batch: byte for byte the
// same, so a read of the table cannot tell which made them.
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_EVENT_ROWS_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_EVENT_ROWS_H_

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

// Appends a row per event of `batch` to `out` (RowBinary, the events table's
// columns); `name_ids[i]` is the names table id of batch.strings(i). Every
// row has the same size.
void AppendEventRows(const ChunkKey& key, const v1::EventBatch& batch,
                     const std::vector<uint64_t>& name_ids, std::string& out);
// Appends the chunk's `events_stored` row to `out`.
void AppendEventMarker(const ChunkKey& key, std::string& out);

}  // namespace profdiff::aggregator::clickhouse

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_EVENT_ROWS_H_
