// The differ's reads from the aggregator: a run's state, and the run reduced
// over its workers (RunStore.GetRunDigest; COMPLETE runs' digests served from
// a DigestCache), or its profiles where a diff needs them (HTA mode).
#ifndef PROFDIFF_DIFFER_SERVICE_STORED_RUNS_H_
#define PROFDIFF_DIFFER_SERVICE_STORED_RUNS_H_

#include <memory>
#include <string>
#include <vector>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "differ/service/digest_cache.h"
#include "profdiff/v1/run_store.grpc.pb.h"
#include "rpc/credentials.h"

namespace profdiff::differ {

struct StoredDigest {
  std::shared_ptr<const v1::RunDigest> digest;
  std::vector<std::string>
      warnings;  // the run is not COMPLETE, or came from the cache only
};

struct StoredProfile {
  std::shared_ptr<const v1::RunProfile> profile;
  std::vector<std::string> warnings;  // the run is not COMPLETE
};

// Thread-safe: calls run on the caller's thread, blocking until `deadline`.
class StoredRuns {
 public:
  // `store_address` is the aggregator; `cache` must outlive this.
  StoredRuns(const std::string& store_address,
             const rpc::ChannelSecurity& security, DigestCache* cache);

  // NotFound naming the run when the aggregator does not hold it; Unavailable
  // naming the aggregator when it does not answer and no digest of the run is
  // cached; InvalidArgument when none of the ranks asked for is stored;
  // DataLoss naming the aggregator, the run and what is wrong when the digest
  // it served is not one the differ can read (analysis/run_digest_check.h);
  // FailedPrecondition when a rank of the run is held by two workers.
  absl::StatusOr<StoredDigest> FetchDigest(const RunKey& key,
                                           absl::Time deadline) const;
  // The profiles of the key's ranks (all when none), uncached; errors as
  // FetchDigest's.
  absl::StatusOr<StoredProfile> FetchProfile(const RunKey& key,
                                             absl::Time deadline) const;

  v1::RunStore::Stub& stub() const { return *stub_; }
  // `status` (an error from the aggregator) with "aggregator ADDR: " in front.
  absl::Status Annotate(const absl::Status& status) const;

 private:
  std::string store_address_;
  std::unique_ptr<v1::RunStore::Stub> stub_;
  DigestCache* cache_;
};

}  // namespace profdiff::differ

#endif  // PROFDIFF_DIFFER_SERVICE_STORED_RUNS_H_
