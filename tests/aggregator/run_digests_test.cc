// RunDigests against a store that is still building a run's profiles in the
// background (as the ClickHouse store does after its spans close): a digest
// of a COMPLETE run waits for those builds instead of making the profiles
// again itself, and one of a run still uploading does not wait (design note 5
// of aggregator/run_digests.h).
#include "aggregator/run_digests.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <absl/time/clock.h>
#include <gtest/gtest.h>

namespace profdiff::aggregator {
namespace {

constexpr char kRun[] = "r1";

// Serves one run of one closed worker in the state a test sets, with the
// profile builds it says are pending; records how many were pending when the
// digest visited the profiles. Writes are not part of this.
class BuildingStore final : public Store {
 public:
  explicit BuildingStore(v1::RunState state) : state_(state) {}

  std::atomic<int> pending{1};
  mutable std::atomic<int> pending_at_visit{-1};

  const std::vector<std::string>& recovery_notes() const override {
    return notes_;
  }
  std::string Describe() const override { return "building store (test)"; }
  absl::StatusOr<OpenedSpan> OpenSpan(const v1::UploadHeader&) override {
    return absl::UnimplementedError("read-only");
  }
  absl::StatusOr<int64_t> AppendChunk(SpanLease&,
                                      const v1::TraceChunk&) override {
    return absl::UnimplementedError("read-only");
  }
  absl::Status CloseSpan(SpanLease&, const v1::SpanEnd&) override {
    return absl::UnimplementedError("read-only");
  }
  absl::StatusOr<v1::ListRunsResponse> ListRuns(
      const v1::ListRunsRequest&) const override {
    return absl::UnimplementedError("not here");
  }
  absl::StatusOr<v1::StoredRun> GetRun(const std::string& run,
                                       RunDetail) const override {
    v1::StoredRun stored;
    stored.set_run(run);
    stored.set_state(state_);
    stored.set_world_size(1);
    stored.set_closed_worker_count(state_ == v1::RUN_STATE_COMPLETE ? 1 : 0);
    return stored;
  }
  absl::Status VisitProfiles(const v1::GetProfileRequest&,
                             ProfileVisitor) const override {
    pending_at_visit = pending.load();
    return absl::OkStatus();  // no worker: the digest is refused, later
  }
  absl::StatusOr<std::unique_ptr<TraceExport>> ExportTrace(
      const v1::ExportTraceRequest&) const override {
    return absl::UnimplementedError("not here");
  }
  int ProfileBuildsPending(const std::string& run) const override {
    return run == kRun ? pending.load() : 0;
  }

 private:
  const v1::RunState state_;
  const std::vector<std::string> notes_;
};

v1::GetRunDigestRequest RequestOf(const std::string& run) {
  v1::GetRunDigestRequest request;
  request.set_run(run);
  return request;
}

TEST(RunDigestsTest, ADigestOfACompleteRunWaitsForTheProfilesBeingBuilt) {
  BuildingStore store(v1::RUN_STATE_COMPLETE);
  RunDigests digests(&store, size_t{1} << 30);
  // The builds end a moment after the digest is asked.
  std::jthread builds([&] {
    absl::SleepFor(absl::Milliseconds(300));
    store.pending = 0;
  });
  (void)digests.Get(RequestOf(kRun));
  EXPECT_EQ(store.pending_at_visit, 0)
      << "the digest read the profiles while their builds were pending";
}

TEST(RunDigestsTest, ADigestOfARunStillUploadingDoesNotWaitForBuilds) {
  BuildingStore store(v1::RUN_STATE_OPEN);  // its builds never end here
  RunDigests digests(&store, size_t{1} << 30);
  const absl::Time start = absl::Now();
  (void)digests.Get(RequestOf(kRun));
  EXPECT_EQ(store.pending_at_visit, 1);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
}

TEST(RunDigestsTest, ADigestOfARunWithNoBuildsPendingIsMadeAtOnce) {
  BuildingStore store(v1::RUN_STATE_COMPLETE);
  store.pending = 0;
  RunDigests digests(&store, size_t{1} << 30);
  const absl::Time start = absl::Now();
  (void)digests.Get(RequestOf(kRun));
  EXPECT_EQ(store.pending_at_visit, 0);
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
}

}  // namespace
}  // namespace profdiff::aggregator
