#include "aggregator/open_store.h"

#include "aggregator/clickhouse/clickhouse_control_store.h"
#include "aggregator/clickhouse/clickhouse_store.h"
#include "aggregator/local/local_store.h"
#include "aggregator/local/memory_control_store.h"
#include "base/status_macros.h"

namespace profdiff::aggregator {

absl::StatusOr<std::unique_ptr<Store>> OpenStore(const StoreOptions& options) {
  if (!options.clickhouse_url.empty()) {
    PD_ASSIGN_OR_RETURN(std::unique_ptr<ClickHouseStore> store,
                        ClickHouseStore::Open(options));
    return std::unique_ptr<Store>(std::move(store));
  }
  PD_ASSIGN_OR_RETURN(std::unique_ptr<LocalStore> store,
                      LocalStore::Open(options));
  return std::unique_ptr<Store>(std::move(store));
}

absl::StatusOr<std::unique_ptr<ControlStore>> OpenControlStore(
    const StoreOptions& options) {
  if (!options.clickhouse_url.empty()) {
    return OpenClickHouseControlStore(options);
  }
  return NewMemoryControlStore();
}

}  // namespace profdiff::aggregator
