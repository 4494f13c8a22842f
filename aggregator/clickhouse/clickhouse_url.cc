#include "aggregator/clickhouse/clickhouse_url.h"

#include <cctype>

#include "base/parse_int.h"
#include "base/str_cat.h"

namespace profdiff::aggregator::clickhouse {
namespace {

constexpr std::string_view kScheme = "clickhouse://";

bool IsIdentifier(std::string_view name) {
  if (name.empty() || name.size() > 64 ||
      std::isdigit(static_cast<unsigned char>(name[0])))
    return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<ClickHouseUrl> ParseClickHouseUrl(std::string_view url) {
  const std::string quoted = base::StrCat("--store \"", url, "\"");
  if (!url.starts_with(kScheme)) {
    return absl::InvalidArgumentError(
        base::StrCat(quoted,
                     ": must start with clickhouse:// "
                     "(clickhouse://HOST:PORT[,HOST:PORT...]/DB)"));
  }
  std::string_view rest = url.substr(kScheme.size());
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) {
    return absl::InvalidArgumentError(
        base::StrCat(quoted, ": no /DATABASE after the addresses"));
  }
  ClickHouseUrl parsed;
  parsed.database = std::string(rest.substr(slash + 1));
  if (!IsIdentifier(parsed.database)) {
    return absl::InvalidArgumentError(
        base::StrCat(quoted, ": database \"", parsed.database,
                     "\" must be [A-Za-z_][A-Za-z0-9_]{0,63}"));
  }
  std::string_view addresses = rest.substr(0, slash);
  while (true) {
    const size_t comma = addresses.find(',');
    const std::string_view address = addresses.substr(0, comma);
    const size_t colon = address.rfind(':');
    int64_t port = 0;
    if (colon == std::string_view::npos || colon == 0 ||
        !base::ParseInt64(address.substr(colon + 1), port) || port < 1 ||
        port > 65535) {
      return absl::InvalidArgumentError(
          base::StrCat(quoted, ": shard address \"", address,
                       "\" must be HOST:PORT (the HTTP port)"));
    }
    parsed.shards.emplace_back(address);
    if (comma == std::string_view::npos) break;
    addresses = addresses.substr(comma + 1);
  }
  return parsed;
}

}  // namespace profdiff::aggregator::clickhouse
