// `--store clickhouse://HOST:HTTP_PORT[,HOST:HTTP_PORT...]/DB`: one HTTP
// address per shard, in the order of the servers' remote_servers cluster, and
// the database profdiff's tables live in.
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_CLICKHOUSE_URL_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_CLICKHOUSE_URL_H_

#include <string>
#include <string_view>
#include <vector>

#include <absl/status/statusor.h>

namespace profdiff::aggregator::clickhouse {

struct ClickHouseUrl {
  std::vector<std::string> shards;  // "HOST:PORT"
  std::string database;
};

// InvalidArgument naming the part that is wrong (scheme, an address, the
// database name).
absl::StatusOr<ClickHouseUrl> ParseClickHouseUrl(std::string_view url);

}  // namespace profdiff::aggregator::clickhouse

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_CLICKHOUSE_URL_H_
