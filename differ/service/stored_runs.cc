#include "differ/service/stored_runs.h"

#include <grpcpp/client_context.h>

#include "analysis/run_digest_check.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
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

StoredRuns::StoredRuns(const std::string& store_address,
                       const rpc::ChannelSecurity& security, DigestCache* cache)
    : store_address_(store_address),
      stub_(v1::RunStore::NewStub(rpc::MakeChannel(store_address, security))),
      cache_(cache) {}

absl::Status StoredRuns::Annotate(const absl::Status& status) const {
  // The aggregator's NOT_FOUND already names the run; say which server
  // answered.
  return base::Annotate(status, base::StrCat("aggregator ", store_address_));
}

absl::StatusOr<StoredDigest> StoredRuns::FetchDigest(
    const RunKey& key, absl::Time deadline) const {
  StoredDigest out;
  v1::StoredRun run;
  {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(deadline));
    v1::GetRunRequest request;
    request.set_run(key.run);
    request.set_summary(true);
    absl::Status status =
        rpc::FromGrpcStatus(stub_->GetRun(&context, request, &run));
    if (!status.ok()) {
      // A COMPLETE run's digest does not change while nothing arrives, and
      // nothing can arrive while the aggregator is away: the cached one is
      // still the run's.
      if (StoreUnreachable(status)) {
        if (std::shared_ptr<const v1::RunDigest> cached =
                cache_->FindAnyVersion(key)) {
          out.digest = std::move(cached);
          out.warnings.push_back(
              base::StrCat("aggregator ", store_address_, " did not answer (",
                           status.message(), "); run ", key.run,
                           " is the one cached when it was COMPLETE"));
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
    if (std::shared_ptr<const v1::RunDigest> cached =
            cache_->Find(key, version)) {
      out.digest = std::move(cached);
      return out;
    }
  }
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(deadline));
  v1::GetRunDigestRequest request;
  request.set_run(key.run);
  request.set_operator_grouping(key.operator_grouping);
  request.set_kernel_grouping(key.kernel_grouping);
  for (const int32_t rank : key.ranks) request.add_ranks(rank);
  auto digest = std::make_shared<v1::RunDigest>();
  if (absl::Status status = rpc::FromGrpcStatus(
          stub_->GetRunDigest(&context, request, digest.get()));
      !status.ok()) {
    return Annotate(status);
  }
  // Checked before it is cached or diffed: a damaged digest (a store's kept
  // copy, another aggregator's) is an error naming the run, never a crash.
  if (absl::Status valid = analysis::ValidateRunDigest(*digest); !valid.ok()) {
    return absl::DataLossError(
        base::StrCat("aggregator ", store_address_, ": ", valid.message()));
  }
  if (digest->run() != key.run) {
    return absl::DataLossError(base::StrCat(
        "aggregator ", store_address_, ": asked for the digest of run ",
        key.run, ", got run ", base::QuoteBytes(digest->run()), "'s"));
  }
  if (complete) cache_->Insert(key, version, digest);
  out.digest = std::move(digest);
  return out;
}

absl::StatusOr<StoredProfile> StoredRuns::FetchProfile(
    const RunKey& key, absl::Time deadline) const {
  StoredProfile out;
  {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(deadline));
    v1::GetRunRequest request;
    request.set_run(key.run);
    request.set_summary(true);
    v1::StoredRun run;
    PD_RETURN_IF_ERROR(
        Annotate(rpc::FromGrpcStatus(stub_->GetRun(&context, request, &run))));
    out.warnings = RunWarnings(run);
  }
  auto profile = std::make_shared<v1::RunProfile>();
  profile->set_run(key.run);
  // One rank asked for is one worker fetched; otherwise every worker, and the
  // diff selects.
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(deadline));
  v1::GetProfileRequest request;
  request.set_run(key.run);
  request.set_operator_grouping(key.operator_grouping);
  request.set_kernel_grouping(key.kernel_grouping);
  if (key.ranks.size() == 1) request.mutable_workers()->set_rank(key.ranks[0]);
  PD_RETURN_IF_ERROR(Annotate(rpc::FromGrpcStatus(
      stub_->GetProfile(&context, request, profile.get()))));
  out.profile = std::move(profile);
  return out;
}

}  // namespace profdiff::differ
