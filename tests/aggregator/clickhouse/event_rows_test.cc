// The events table's Native blocks: the table's columns in its order, each
// row's values, and the attempt column a retry rewrites in place.
#include "aggregator/clickhouse/event_rows.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "aggregator/clickhouse/row_binary.h"
#include "aggregator/clickhouse/schema.h"
#include "aggregator/clickhouse/shard_writer.h"

namespace profdiff::aggregator::clickhouse {
namespace {

// A Native block read back: column names, types, and each column's values as
// text (strings) or integers (numbers).
struct Column {
  std::string name, type;
  std::vector<std::string> strings;
  std::vector<int64_t> numbers;
};

size_t Width(const std::string& type) {
  if (type == "Int64" || type == "UInt64") return 8;
  if (type == "UInt32") return 4;
  if (type.starts_with("Enum8")) return 1;
  return 0;  // String
}

std::vector<Column> ReadBlock(std::string_view block, uint64_t& rows) {
  RowBinaryReader reader(block);
  const uint64_t columns = reader.VarUInt();
  rows = reader.VarUInt();
  std::vector<Column> out;
  for (uint64_t c = 0; c < columns && reader.ok(); ++c) {
    Column column;
    column.name = reader.String();
    column.type = reader.String();
    const size_t width = Width(column.type);
    for (uint64_t r = 0; r < rows && reader.ok(); ++r) {
      if (width == 0) {
        column.strings.emplace_back(reader.String());
      } else if (width == 8) {
        column.numbers.push_back(reader.Number<int64_t>());
      } else if (width == 4) {
        column.numbers.push_back(reader.Number<uint32_t>());
      } else {
        column.numbers.push_back(reader.Number<int8_t>());
      }
    }
    out.push_back(std::move(column));
  }
  EXPECT_TRUE(reader.ok());
  EXPECT_TRUE(reader.done());
  return out;
}

v1::EventBatch ThreeEvents() {
  v1::EventBatch batch;
  for (const char* text : {"", "aten::mm", "[[2, 3]]"}) batch.add_strings(text);
  for (int i = 0; i < 3; ++i) {
    batch.add_kind(i + 1);
    batch.add_name(1);
    batch.add_start_delta_ns(10);
    batch.add_duration_ns(5 + i);
    batch.add_device(-1);
    batch.add_thread(7);
    batch.add_correlation(100 + i);
    batch.add_external_id(0);
    batch.add_sequence_number(-1);
    batch.add_input_shapes(i == 2 ? 2 : 0);
  }
  return batch;
}

TEST(EventRowsTest, ABlockHasTheTablesColumnsInOrderAndEveryRow) {
  const std::vector<uint64_t> ids = {0, 11, 22};
  std::string block;
  const size_t attempts_at = AppendEventBlock({"run", "0.host", "span", 4, 99},
                                              ThreeEvents(), ids, block);
  uint64_t rows = 0;
  const std::vector<Column> columns = ReadBlock(block, rows);
  EXPECT_EQ(rows, 3u);
  std::vector<std::string> table;
  for (const auto& [name, names] : LocalTableColumns()) {
    if (name == "events_local") table = names;
  }
  ASSERT_EQ(columns.size(), table.size());
  std::map<std::string, const Column*> by_name;
  for (size_t i = 0; i < columns.size(); ++i) {
    EXPECT_EQ(columns[i].name, table[i]) << i;
    by_name[columns[i].name] = &columns[i];
  }
  EXPECT_EQ(by_name["kind"]->type, EventKindType());
  EXPECT_EQ(by_name["worker"]->strings,
            (std::vector<std::string>{"0.host", "0.host", "0.host"}));
  EXPECT_EQ(by_name["seq"]->numbers, (std::vector<int64_t>{4, 4, 4}));
  EXPECT_EQ(by_name["attempt"]->numbers, (std::vector<int64_t>{99, 99, 99}));
  EXPECT_EQ(by_name["idx"]->numbers, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(by_name["kind"]->numbers, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(by_name["name_id"]->numbers, (std::vector<int64_t>{11, 11, 11}));
  EXPECT_EQ(by_name["start_ns"]->numbers, (std::vector<int64_t>{10, 20, 30}));
  EXPECT_EQ(by_name["duration_ns"]->numbers, (std::vector<int64_t>{5, 6, 7}));
  EXPECT_EQ(by_name["device"]->numbers, (std::vector<int64_t>{-1, -1, -1}));
  EXPECT_EQ(by_name["correlation"]->numbers,
            (std::vector<int64_t>{100, 101, 102}));
  EXPECT_EQ(by_name["input_shapes_id"]->numbers,
            (std::vector<int64_t>{0, 0, 22}));
  uint64_t first_attempt = 0;
  std::memcpy(&first_attempt, block.data() + attempts_at, 8);
  EXPECT_EQ(first_attempt, 99u);
}

TEST(EventRowsTest, ABatchWithoutEventsIsNoBlock) {
  std::string block = "kept";
  AppendEventBlock({"r", "w", "s", 0, 1}, v1::EventBatch(), {0}, block);
  EXPECT_EQ(block, "kept");
}

TEST(EventRowsTest, ARetrysAttemptReachesEveryRowTheMarkerAndTheLedger) {
  ChunkRows rows;
  const ChunkKey key{"run", "0.host", "span", 4, 99};
  rows.events_attempts_at =
      AppendEventBlock(key, ThreeEvents(), {0, 11, 22}, rows.events);
  rows.event_count = 3;
  AppendEventMarker(key, rows.event_marker);
  rows.ledger = rows.event_marker + "rest of the ledger row";
  rows.attempt_offset = rows.event_marker.size() - sizeof(uint64_t);
  rows.SetAttempt(12345);
  uint64_t count = 0;
  for (const Column& column : ReadBlock(rows.events, count)) {
    if (column.name == "attempt")
      EXPECT_EQ(column.numbers, (std::vector<int64_t>{12345, 12345, 12345}));
    if (column.name == "correlation")  // its neighbours untouched
      EXPECT_EQ(column.numbers, (std::vector<int64_t>{100, 101, 102}));
  }
  for (const std::string* row : {&rows.event_marker, &rows.ledger}) {
    uint64_t attempt = 0;
    std::memcpy(&attempt, row->data() + rows.attempt_offset, 8);
    EXPECT_EQ(attempt, 12345u);
  }
}

}  // namespace
}  // namespace profdiff::aggregator::clickhouse
