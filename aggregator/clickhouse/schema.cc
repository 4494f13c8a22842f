#include "aggregator/clickhouse/schema.h"

#include <google/protobuf/descriptor.h>

#include "base/str_cat.h"
#include "profdiff/v1/trace.pb.h"

namespace profdiff::aggregator::clickhouse {
namespace {}  // namespace

// Enum8('CPU_OP' = 1, ...) from the proto's EventKind, so SQL reads kinds by
// name.
std::string EventKindType() {
  const google::protobuf::EnumDescriptor* kinds = v1::EventKind_descriptor();
  std::string values;
  for (int i = 0; i < kinds->value_count(); ++i) {
    const google::protobuf::EnumValueDescriptor* value = kinds->value(i);
    std::string name = value->name();
    if (name.starts_with("EVENT_KIND_")) name = name.substr(11);
    base::StrAppend(&values, i == 0 ? "" : ", ", "'", name,
                    "' = ", value->number());
  }
  return base::StrCat("Enum8(", values, ")");
}

namespace {

struct Table {
  const char* name;
  std::string columns;
  std::string engine;
  const char* shard_by = "run, worker";  // the Distributed table's sharding key
};

std::vector<Table> Tables() {
  const std::string key = "run String, worker String, ";
  return {
      {"chunks",
       key + "span String, seq Int64, attempt UInt64, event_count UInt32, "
             "batch_bytes UInt64, "
             "stored_ms Int64, batch_zstd String",
       "ReplacingMergeTree(attempt) ORDER BY (run, worker, span, seq)"},
      {"events",
       key + "span String, seq Int64, attempt UInt64, idx UInt32, kind " +
           EventKindType() +
           ", name_id UInt64, start_ns Int64, duration_ns Int64, device Int64, "
           "thread Int64, "
           "correlation Int64, external_id Int64, sequence_number Int64, "
           "input_shapes_id UInt64",
       "MergeTree ORDER BY (run, worker, span, seq, idx)"},
      // A row per chunk whose `events` rows are stored (events_mirror.h);
      // ledger rows without one are made again from their batches.
      {"events_stored", key + "span String, seq Int64, attempt UInt64",
       "ReplacingMergeTree ORDER BY (run, worker, span, seq, attempt)"},
      {"names", key + "name_id UInt64, name String",
       "ReplacingMergeTree ORDER BY (run, worker, name_id)"},
      {"spans",
       key + "span String, rank Int32, world_size Int32, worker_name String, "
             "agent_id String, "
             "header String, state UInt8, chunk_count Int64, event_count "
             "Int64, opened_ms Int64, "
             "closed_ms Int64",
       "ReplacingMergeTree(state) ORDER BY (run, worker, span)"},
      {"profiles",
       // The serialized WorkerProfile zstd-compressed by the aggregator, and
       // its size: a tenth of the bytes for the servers to write and merge.
       key + "generation UInt64, spans Array(String), step_count Int32, "
             "profile_bytes UInt64, profile_zstd String",
       "ReplacingMergeTree(generation) ORDER BY (run, worker)"},
      {"digests",
       "run String, digest_key String, version String, made_ms Int64, "
       "digest String",
       "ReplacingMergeTree(made_ms) ORDER BY (run, digest_key, version)",
       "run, digest_key"},
  };
}

}  // namespace

std::vector<std::string> SchemaStatements(const std::string& database,
                                          const std::string& cluster) {
  const std::vector<Table> tables = Tables();
  std::vector<std::string> statements;
  statements.reserve(2 * tables.size());
  for (const Table& table : tables) {
    statements.push_back(
        base::StrCat("CREATE TABLE IF NOT EXISTS ", database, ".", table.name,
                     "_local (", table.columns, ") ENGINE = ", table.engine));
  }
  for (const Table& table : tables) {
    statements.push_back(base::StrCat(
        "CREATE TABLE IF NOT EXISTS ", database, ".", table.name, " AS ",
        database, ".", table.name, "_local ENGINE = Distributed(", cluster,
        ", ", database, ", ", table.name, "_local, cityHash64(", table.shard_by,
        "))"));
  }
  return statements;
}

std::vector<std::pair<std::string, std::vector<std::string>>>
LocalTableColumns() {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const Table& table : Tables()) {
    // "name Type, name Type(a, b), ...": columns are split at commas outside
    // parentheses, and a column's name is its first word.
    std::vector<std::string> names;
    std::string item;
    int depth = 0;
    const auto finish = [&] {
      const size_t first = item.find_first_not_of(' ');
      if (first != std::string::npos)
        names.push_back(item.substr(first, item.find(' ', first) - first));
      item.clear();
    };
    for (const char c : table.columns) {
      if (c == '(') ++depth;
      if (c == ')') --depth;
      if (c == ',' && depth == 0) {
        finish();
      } else {
        item += c;
      }
    }
    finish();
    out.push_back({base::StrCat(table.name, "_local"), std::move(names)});
  }
  return out;
}

}  // namespace profdiff::aggregator::clickhouse
