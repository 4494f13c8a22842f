// The ControlStore of aggregator replicas over one ClickHouse cluster: every
// replica reads and writes the same three small tables, on the cluster's first
// shard (a capture needs that shard up; uploads do not):
//   control_agents    (agent_id, seen_ms, status) ReplacingMergeTree(seen_ms)
//   control_captures  (capture_id, created_ms, version, capture)
//                                                     ReplacingMergeTree(version)
//   control_answers   (capture_id, agent_id, answer)  ReplacingMergeTree
// Messages are stored as serialized protos and read back hex-encoded (TSV
// output escapes bytes); reads take each key's latest row with argMax, which
// 18.16 and current releases share. A capture's version is its state, so a
// final state always replaces RUNNING.
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_CLICKHOUSE_CONTROL_STORE_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_CLICKHOUSE_CONTROL_STORE_H_

#include <memory>
#include <string>

#include <absl/status/statusor.h>

#include "aggregator/store/control_store.h"
#include "aggregator/store/store.h"

namespace profdiff::aggregator {

// Creates the tables when missing. Errors: the URL's (InvalidArgument), or
// Unavailable naming the shard when it cannot be reached.
absl::StatusOr<std::unique_ptr<ControlStore>> OpenClickHouseControlStore(
    const StoreOptions& options);

// The CREATE TABLE statements of the control tables in `database`.
std::vector<std::string> ControlSchemaStatements(const std::string& database);

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_CLICKHOUSE_CONTROL_STORE_H_
