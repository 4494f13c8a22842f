#include "aggregator/store.h"

#include "aggregator/clickhouse/clickhouse_store.h"
#include "aggregator/local_store.h"
#include "aggregator/run_tables.h"
#include "base/id_rules.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {

absl::StatusOr<std::unique_ptr<Store>> OpenStore(const StoreOptions& options) {
  if (!options.clickhouse_url.empty()) {
    PD_ASSIGN_OR_RETURN(std::unique_ptr<ClickHouseStore> store, ClickHouseStore::Open(options));
    return std::unique_ptr<Store>(std::move(store));
  }
  PD_ASSIGN_OR_RETURN(std::unique_ptr<LocalStore> store, LocalStore::Open(options));
  return std::unique_ptr<Store>(std::move(store));
}

absl::StatusOr<v1::RunTables> Store::GetRunTables(const v1::GetRunTablesRequest& request) const {
  v1::GetProfileRequest profiles;
  profiles.set_run(request.run());
  *profiles.mutable_workers() = request.workers();
  PD_ASSIGN_OR_RETURN(const v1::RunProfile profile, GetProfile(profiles));
  return RunTablesOf(profile, request.normalize());
}

absl::Status ValidateUploadHeader(const v1::UploadHeader& header) {
  const v1::WorkerInfo& info = header.worker();
  PD_RETURN_IF_ERROR(base::ValidateId("run", header.run()));
  PD_RETURN_IF_ERROR(base::ValidateId("span", header.span()));
  PD_RETURN_IF_ERROR(base::ValidateId("worker name", info.worker_name()));
  if (info.rank() < 0) {
    return absl::InvalidArgumentError(base::StrCat("worker rank ", info.rank(), ": must be >= 0"));
  }
  if (info.world_size() < 1 || info.rank() >= info.world_size()) {
    return absl::InvalidArgumentError(base::StrCat("worker world_size ", info.world_size(),
                                                   ": must be >= 1 and > rank ", info.rank()));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> ListRunsPageSize(const v1::ListRunsRequest& request) {
  constexpr int kDefaultPageSize = 100;
  constexpr int kMaxPageSize = 1000;
  if (request.page_size() < 0 || request.page_size() > kMaxPageSize) {
    return absl::InvalidArgumentError(
        base::StrCat("page_size ", request.page_size(), ": must be 0..", kMaxPageSize));
  }
  return request.page_size() == 0 ? kDefaultPageSize : request.page_size();
}

std::string WorkerKey(int32_t rank, const std::string& name) { return base::StrCat(rank, ".", name); }

}  // namespace profdiff::aggregator
