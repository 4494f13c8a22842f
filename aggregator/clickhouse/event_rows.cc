#include "aggregator/clickhouse/event_rows.h"

#include <cstring>

#include "aggregator/clickhouse/row_binary.h"
#include "aggregator/clickhouse/schema.h"

namespace profdiff::aggregator::clickhouse {
namespace {

// A column's header: its name and type, as Native has them.
void AppendColumn(std::string& out, std::string_view name,
                  std::string_view type) {
  RowBinaryWriter writer(out);
  writer.String(name);
  writer.String(type);
}

// `rows` copies of one string value.
void AppendRepeatedString(std::string& out, std::string_view value, int rows) {
  std::string one;
  RowBinaryWriter(one).String(value);
  out.reserve(out.size() + one.size() * static_cast<size_t>(rows));
  for (int i = 0; i < rows; ++i) out += one;
}

// A column of fixed-width numbers (x86-64 and aarch64 are little-endian, as
// Native is): `value(i)` for each row.
template <typename T, typename F>
void AppendNumbers(std::string& out, int rows, F value) {
  const size_t at = out.size();
  out.resize(at + sizeof(T) * static_cast<size_t>(rows));
  char* data = out.data() + at;
  for (int i = 0; i < rows; ++i) {
    const T number = static_cast<T>(value(i));
    std::memcpy(data + sizeof(T) * static_cast<size_t>(i), &number, sizeof(T));
  }
}

}  // namespace

size_t AppendEventBlock(const ChunkKey& key, const v1::EventBatch& batch,
                        const std::vector<uint64_t>& name_ids,
                        std::string& out) {
  const int rows = batch.kind_size();
  if (rows == 0) return out.size();
  // Columns in the table's order (schema.cc).
  RowBinaryWriter header(out);
  header.VarUInt(16);
  header.VarUInt(static_cast<uint64_t>(rows));
  for (const auto& [name, value] : {std::pair{"run", key.run},
                                    {"worker", key.worker},
                                    {"span", key.span}}) {
    AppendColumn(out, name, "String");
    AppendRepeatedString(out, value, rows);
  }
  AppendColumn(out, "seq", "Int64");
  AppendNumbers<int64_t>(out, rows, [&](int) { return key.seq; });
  AppendColumn(out, "attempt", "UInt64");
  const size_t attempts_at = out.size();
  AppendNumbers<uint64_t>(out, rows, [&](int) { return key.attempt; });
  AppendColumn(out, "idx", "UInt32");
  AppendNumbers<uint32_t>(out, rows, [](int i) { return i; });
  AppendColumn(out, "kind", EventKindType());
  AppendNumbers<int8_t>(out, rows, [&](int i) { return batch.kind(i); });
  AppendColumn(out, "name_id", "UInt64");
  AppendNumbers<uint64_t>(out, rows,
                          [&](int i) { return name_ids[batch.name(i)]; });
  AppendColumn(out, "start_ns", "Int64");
  int64_t start = 0;
  AppendNumbers<int64_t>(out, rows, [&](int i) {
    start += batch.start_delta_ns(i);  // in row order
    return start;
  });
  const auto int64_column = [&](const char* name, const auto& values) {
    AppendColumn(out, name, "Int64");
    AppendNumbers<int64_t>(out, rows, [&](int i) { return values.Get(i); });
  };
  int64_column("duration_ns", batch.duration_ns());
  int64_column("device", batch.device());
  int64_column("thread", batch.thread());
  int64_column("correlation", batch.correlation());
  int64_column("external_id", batch.external_id());
  int64_column("sequence_number", batch.sequence_number());
  AppendColumn(out, "input_shapes_id", "UInt64");
  AppendNumbers<uint64_t>(
      out, rows, [&](int i) { return name_ids[batch.input_shapes(i)]; });
  return attempts_at;
}

void AppendEventMarker(const ChunkKey& key, std::string& out) {
  RowBinaryWriter row(out);
  row.String(key.run);
  row.String(key.worker);
  row.String(key.span);
  row.Number<int64_t>(key.seq);
  row.Number<uint64_t>(key.attempt);
}

}  // namespace profdiff::aggregator::clickhouse
