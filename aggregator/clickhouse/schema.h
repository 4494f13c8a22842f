// profdiff's tables in ClickHouse. Each table exists twice: `<name>_local`
// (MergeTree family) on every shard, holding the rows written to that shard,
// and `<name>`, a Distributed table over the cluster for reads. Rows of one
// worker are written to its home shard, cityHash64(run, worker) % shards (the
// Distributed tables' sharding key, so inserts through them agree), or, while
// it is down, to the next shard that answers (see clickhouse_store.h).
//
//   chunks         the ledger: one row per stored chunk (run, worker, span,
//                  seq, attempt, events, bytes, time) with the chunk's
//                  EventBatch (zstd), for exact rebuilds and exports.
//                  ReplacingMergeTree(attempt) ORDER BY (run, worker, span,
//                  seq).
//   events         one row per event (kind as Enum8, name id, start, duration,
//                  device, thread or stream, correlation, external id,
//                  sequence number, input-shapes id), with the (seq, attempt)
//                  that wrote it; for SQL over events, written beside the
//                  acknowledged path (events_mirror.h). MergeTree.
//   events_stored  one row per chunk whose events rows are stored.
//                  ReplacingMergeTree.
//   names          the strings events refer to, per run (name_id: a 64-bit
//                  hash of the string).
//   spans          one row per span and state (open = 1, closed = 2): header,
//                  counts, times. ReplacingMergeTree(state) ORDER BY (run,
//                  worker, span).
//   profiles       serialized WorkerProfiles with the span ids they cover, by
//                  generation. ReplacingMergeTree(generation) ORDER BY (run,
//                  worker).
//   digests        runs reduced over their workers (aggregator/run_digests.h)
//                  by (run, digest key, run version), so replicas and restarts
//                  share them. ReplacingMergeTree(made_ms) ORDER BY (run,
//                  digest_key, version), sharded by (run, digest_key).
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_SCHEMA_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_SCHEMA_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace profdiff::aggregator::clickhouse {

// Every CREATE TABLE IF NOT EXISTS statement for one shard, local tables first;
// `cluster` is the remote_servers cluster the Distributed tables read.
std::vector<std::string> SchemaStatements(const std::string& database,
                                          const std::string& cluster);

// The columns each `<name>_local` table must have, by name, for checking a
// schema an older profdiff created (CREATE TABLE IF NOT EXISTS keeps it as it
// was).
std::vector<std::pair<std::string, std::vector<std::string>>>
LocalTableColumns();

// The events table's `kind` column type: Enum8('CPU_OP' = 1, ...) from the
// proto's EventKind, so SQL reads kinds by name.
std::string EventKindType();

// Span states as stored.
inline constexpr uint8_t kSpanOpen = 1;
inline constexpr uint8_t kSpanClosed = 2;

}  // namespace profdiff::aggregator::clickhouse

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_SCHEMA_H_
