// Reads runs from a profdiff-aggregator's RunStore service, for `profdiff
// runs|show|export`.
#ifndef PROFDIFF_CLIENT_RUN_STORE_CLIENT_H_
#define PROFDIFF_CLIENT_RUN_STORE_CLIENT_H_

#include <memory>
#include <string>
#include <vector>

#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "analysis/worker_profile.h"
#include "profdiff/v1/profile.pb.h"
#include "profdiff/v1/run_store.grpc.pb.h"
#include "rpc/credentials.h"

namespace profdiff::client {

// The server `--server` names when not given: $PROFDIFF_SERVER, else the
// differ's default address (the differ answers the RunStore reads too; an
// aggregator's address works as well).
std::string DefaultServerAddress();

// The request fields for `--group-by` / `--kernels-by` (GetProfileRequest,
// DiffRequest).
struct RequestGroupings {
  v1::Grouping operators = v1::GROUPING_NAME;
  v1::Grouping kernels = v1::GROUPING_NAME;
};
RequestGroupings GroupingsOf(const analysis::ProfileOptions& options);

// Every call has a deadline of `timeout`; errors are the server's status
// (NOT_FOUND for an unknown run, UNAVAILABLE when nothing answers) with "server
// ADDR: " in front.
class RunStoreClient {
 public:
  explicit RunStoreClient(
      const std::string& address,
      const rpc::ChannelSecurity& security = rpc::ChannelSecurity(),
      absl::Duration timeout = absl::Minutes(2));

  // All runs whose id contains `filter`, every page.
  absl::StatusOr<std::vector<v1::StoredRun>> ListRuns(
      const std::string& filter);
  absl::StatusOr<v1::StoredRun> GetRun(const std::string& run);
  absl::StatusOr<v1::RunProfile> GetProfile(
      const std::string& run, const analysis::ProfileOptions& options);
  // The Chrome-trace JSON of one worker (rank number or worker name) of `run`.
  absl::StatusOr<std::string> ExportTrace(const std::string& run,
                                          const std::string& worker,
                                          const std::string& span);

 private:
  absl::Status Annotate(const absl::Status& status) const;

  std::string address_;
  absl::Duration timeout_;
  std::unique_ptr<v1::RunStore::Stub> stub_;
};

}  // namespace profdiff::client

#endif  // PROFDIFF_CLIENT_RUN_STORE_CLIENT_H_
