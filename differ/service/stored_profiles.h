// The differ's reads from the aggregator: a run's state and its profile, the
// profiles of COMPLETE runs served from a ProfileCache.
#ifndef PROFDIFF_DIFFER_SERVICE_STORED_PROFILES_H_
#define PROFDIFF_DIFFER_SERVICE_STORED_PROFILES_H_

#include <memory>
#include <string>
#include <vector>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "differ/service/profile_cache.h"
#include "profdiff/v1/run_store.grpc.pb.h"
#include "rpc/credentials.h"

namespace profdiff::differ {

struct StoredProfile {
  std::shared_ptr<const v1::RunProfile> profile;
  std::vector<std::string>
      warnings;  // the run is not COMPLETE, or came from the cache only
};

// Thread-safe: calls run on the caller's thread, blocking until `deadline`.
class StoredProfiles {
 public:
  // `store_address` is the aggregator; `cache` must outlive this.
  StoredProfiles(const std::string& store_address,
                 const rpc::ChannelSecurity& security, ProfileCache* cache);

  // NotFound naming the run when the aggregator does not hold it; Unavailable
  // naming the aggregator when it does not answer and no profile of the run is
  // cached.
  absl::StatusOr<StoredProfile> Fetch(const ProfileKey& key,
                                      absl::Time deadline) const;

  // The run's operator and kernel tables reduced by the store
  // (RunStore.GetRunTables) over the rank `options` names (all when none), with
  // its normalization; errors as Fetch.
  absl::StatusOr<v1::RunTables> FetchTables(const std::string& run,
                                            const v1::DiffOptions& options,
                                            absl::Time deadline) const;

  v1::RunStore::Stub& stub() const { return *stub_; }
  // `status` (an error from the aggregator) with "aggregator ADDR: " in front.
  absl::Status Annotate(const absl::Status& status) const;

 private:
  std::string store_address_;
  std::unique_ptr<v1::RunStore::Stub> stub_;
  ProfileCache* cache_;
};

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SERVICE_STORED_PROFILES_H_
