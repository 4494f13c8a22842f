#include "differ/service/stored_profiles.h"

#include <grpcpp/client_context.h>

#include "base/status_annotate.h"
#include "base/str_cat.h"
#include "differ/run_completeness.h"
#include "rpc/channel.h"
#include "rpc/status_conversion.h"

namespace profdiff::differ {
namespace {

bool StoreUnreachable(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable ||
         status.code() == absl::StatusCode::kDeadlineExceeded;
}

}  // namespace

StoredProfiles::StoredProfiles(const std::string& store_address,
                               const rpc::ChannelSecurity& security,
                               ProfileCache* cache)
    : store_address_(store_address),
      stub_(v1::RunStore::NewStub(rpc::MakeChannel(store_address, security))),
      cache_(cache) {}

absl::Status StoredProfiles::Annotate(const absl::Status& status) const {
  // The aggregator's NOT_FOUND already names the run; say which server
  // answered.
  return base::Annotate(status, base::StrCat("aggregator ", store_address_));
}

absl::StatusOr<StoredProfile> StoredProfiles::Fetch(const ProfileKey& key,
                                                    absl::Time deadline) const {
  StoredProfile out;
  v1::StoredRun run;
  {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(deadline));
    v1::GetRunRequest request;
    request.set_run(key.run);
    absl::Status status =
        rpc::FromGrpcStatus(stub_->GetRun(&context, request, &run));
    if (!status.ok()) {
      // A COMPLETE run's profile does not change while nothing arrives, and
      // nothing can arrive while the aggregator is away: the cached one is
      // still the run's profile.
      if (StoreUnreachable(status)) {
        if (std::shared_ptr<const v1::RunProfile> cached =
                cache_->FindAnyVersion(key)) {
          out.profile = std::move(cached);
          out.warnings.push_back(
              base::StrCat("aggregator ", store_address_, " did not answer (",
                           status.message(), "); run ", key.run,
                           " is the profile cached when it was COMPLETE"));
          return out;
        }
      }
      return Annotate(status);
    }
  }
  const bool complete = run.state() == v1::RUN_STATE_COMPLETE;
  const RunVersion version = RunVersion::Of(run);
  for (std::string& warning : RunWarnings(run))
    out.warnings.push_back(std::move(warning));
  if (complete) {
    if (std::shared_ptr<const v1::RunProfile> cached =
            cache_->Find(key, version)) {
      out.profile = std::move(cached);
      return out;
    }
  }
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(deadline));
  v1::GetProfileRequest request;
  request.set_run(key.run);
  request.set_operator_grouping(key.operator_grouping);
  request.set_kernel_grouping(key.kernel_grouping);
  auto profile = std::make_shared<v1::RunProfile>();
  if (absl::Status status = rpc::FromGrpcStatus(
          stub_->GetProfile(&context, request, profile.get()));
      !status.ok()) {
    return Annotate(status);
  }
  if (complete) cache_->Insert(key, version, profile);
  out.profile = std::move(profile);
  return out;
}

absl::StatusOr<v1::RunTables> StoredProfiles::FetchTables(
    const std::string& run, const v1::DiffOptions& options,
    absl::Time deadline) const {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(deadline));
  v1::GetRunTablesRequest request;
  request.set_run(run);
  request.set_normalize(options.normalize());
  if (options.ranks_size() == 1)
    request.mutable_workers()->set_rank(options.ranks(0));
  v1::RunTables tables;
  if (absl::Status status =
          rpc::FromGrpcStatus(stub_->GetRunTables(&context, request, &tables));
      !status.ok()) {
    return Annotate(status);
  }
  return tables;
}

}  // namespace profdiff::differ
