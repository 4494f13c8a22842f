// The one place that knows every store backend: opens the one the server's
// flags name (--data-dir: the local store; --store clickhouse://...).
#ifndef PROFDIFF_AGGREGATOR_OPEN_STORE_H_
#define PROFDIFF_AGGREGATOR_OPEN_STORE_H_

#include <memory>

#include <absl/status/statusor.h>

#include "aggregator/store/control_store.h"
#include "aggregator/store/store.h"

namespace profdiff::aggregator {

// Opens the backend `options` names.
absl::StatusOr<std::unique_ptr<Store>> OpenStore(const StoreOptions& options);

// The ControlStore replicas of that backend share: in memory for the local
// store (one replica), tables on the first shard for ClickHouse.
absl::StatusOr<std::unique_ptr<ControlStore>> OpenControlStore(
    const StoreOptions& options);

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_OPEN_STORE_H_
