#include "aggregator/clickhouse/event_rows.h"

#include "aggregator/clickhouse/row_binary.h"

namespace profdiff::aggregator::clickhouse {
namespace {

void AppendKey(const ChunkKey& key, RowBinaryWriter& row) {
  row.String(key.run);
  row.String(key.worker);
  row.String(key.span);
  row.Number<int64_t>(key.seq);
  row.Number<uint64_t>(key.attempt);
}

}  // namespace

void AppendEventRows(const ChunkKey& key, const v1::EventBatch& batch,
                     const std::vector<uint64_t>& name_ids, std::string& out) {
  RowBinaryWriter rows(out);
  const int events = batch.kind_size();
  int64_t start = 0;
  for (int i = 0; i < events; ++i) {
    const size_t row_begin = out.size();
    start += batch.start_delta_ns(i);
    AppendKey(key, rows);
    rows.Number<uint32_t>(static_cast<uint32_t>(i));
    rows.Number<int8_t>(static_cast<int8_t>(batch.kind(i)));
    rows.Number<uint64_t>(name_ids[batch.name(i)]);
    rows.Number<int64_t>(start);
    rows.Number<int64_t>(batch.duration_ns(i));
    rows.Number<int64_t>(batch.device(i));
    rows.Number<int64_t>(batch.thread(i));
    rows.Number<int64_t>(batch.correlation(i));
    rows.Number<int64_t>(batch.external_id(i));
    rows.Number<int64_t>(batch.sequence_number(i));
    rows.Number<uint64_t>(name_ids[batch.input_shapes(i)]);
    // Rows have one size: room for all of them once the first is written.
    if (i == 0) out.reserve(row_begin + (out.size() - row_begin) * events);
  }
}

void AppendEventMarker(const ChunkKey& key, std::string& out) {
  RowBinaryWriter row(out);
  AppendKey(key, row);
}

}  // namespace profdiff::aggregator::clickhouse
