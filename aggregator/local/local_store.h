// The embedded run store: a data folder holding every uploaded span durably,
// the profiles built from them, and the reads RunStore serves.
//
// Design:
// 1. Layout: <data>/runs/<run>/run.pb,
//    .../workers/<rank>.<worker>/spans/<span>/{span.pb, seg-*.log} and
//    .../workers/<rank>.<worker>/profile-<generation>.pb. Manifests are
//    replaced atomically (temp, fsync, rename); events go to segment logs
//    (aggregator/local/segment_log.h). Every name: store_layout.h.
// 2. A chunk is acknowledged only after its record is fdatasync'd; the durable
//    sequence of a span is what its segments hold, re-read at start-up, so
//    nothing acknowledged is ever lost and nothing unacknowledged is ever
//    counted.
// 3. Start-up scans every span: a torn tail is cut; damaged bytes are moved to
//    quarantine/ and intact records after them kept (segment_log.h); a damaged
//    span.pb moves the span's segments to quarantine/. A closed span that lost
//    chunks becomes INCOMPLETE: not served, listed by ListDamagedSpans so its
//    agent sends it again, which rebuilds it. Other spans and runs are served
//    as usual. Leftover temp files (*.tmp.*) of interrupted atomic writes are
//    removed.
// 6. One process per data folder: <data>/LOCK is flock'ed while the store is
//    open.
// 7. A profile that cannot be stored (disk full) is not a failed close: the
//    worker says why (profile_problem) and reads build the profile from the
//    stored events, trying to store it again each time.
// 4. One writer per span: OpenSpan hands out a SpanLease; a second stream for a
//    leased span is ABORTED (its agent retries once the first stream is gone).
//    Appends run without any store lock held; `mu_` guards only the in-memory
//    index.
// 5. A worker's profile is rebuilt from all its closed spans when one closes,
//    written under a new generation number, so a slow build never overwrites a
//    newer one.
// 8. Every file, folder and clock reading goes through options.env
//    (base/env.h), so tests run crashes and a full disk in-process.
#ifndef PROFDIFF_AGGREGATOR_LOCAL_LOCAL_STORE_H_
#define PROFDIFF_AGGREGATOR_LOCAL_LOCAL_STORE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/time.h>

#include "aggregator/store/store.h"
#include "base/env.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::aggregator {

class LocalStore final : public Store {
 public:
  struct RunEntry;
  struct WorkerEntry;
  struct SpanEntry;

 private:
  struct Passkey {};  // only the store makes stores and leases

 public:
  // The right to append to one span; the span is free again when the lease is
  // destroyed. Used by one upload stream at a time (not thread-safe itself).
  class SpanLease final : public Store::SpanLease {
   public:
    SpanLease(Passkey, LocalStore* store, std::string run, WorkerEntry* worker,
              SpanEntry* span);
    ~SpanLease() override;
    SpanLease(const SpanLease&) = delete;
    SpanLease& operator=(const SpanLease&) = delete;

   private:
    friend class LocalStore;

    LocalStore* store_;
    std::string run_;
    WorkerEntry* worker_;
    SpanEntry* span_;
    std::string batch_bytes_;  // reused serialisation buffer
  };

  // Opens (creating when missing) the data folder and recovers every stored
  // run. A damaged run or span is recorded in recovery_notes() and skipped;
  // only I/O errors on the data folder itself fail (Unavailable).
  // FailedPrecondition when another process (or store) has the folder open,
  // naming its pid.
  static absl::StatusOr<std::unique_ptr<LocalStore>> Open(StoreOptions options);
  LocalStore(Passkey, StoreOptions options,
             std::unique_ptr<base::FileLockHandle> lock);
  ~LocalStore() override;

  const std::vector<std::string>& recovery_notes() const override {
    return recovery_notes_;
  }
  std::string Describe() const override { return "local " + options_.data_dir; }

  // Store (aggregator/store/store.h). Local specifics: a chunk is durable once
  // fdatasync'd; reads skip INCOMPLETE spans found at start-up.
  absl::StatusOr<OpenedSpan> OpenSpan(const v1::UploadHeader& header) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<int64_t> AppendChunk(Store::SpanLease& lease,
                                      const v1::TraceChunk& chunk) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status CloseSpan(Store::SpanLease& lease,
                         const v1::SpanEnd& end) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::ListRunsResponse> ListRuns(
      const v1::ListRunsRequest& request) const override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::StoredRun> GetRun(const std::string& run,
                                       RunDetail detail) const override
      ABSL_LOCKS_EXCLUDED(mu_);
  // Kept as files beside the run's workers (<run>/digests/), the latest
  // version of each key only, framed (aggregator/store/kept_digest.h): a file
  // that is not whole or not the one asked for is DataLoss naming it.
  absl::StatusOr<std::optional<v1::RunDigest>> LoadDigest(
      const std::string& run, const std::string& key,
      const std::string& version) const override ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status SaveDigest(const std::string& run, const std::string& key,
                          const std::string& version,
                          const v1::RunDigest& digest) const override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status VisitProfiles(const v1::GetProfileRequest& request,
                             ProfileVisitor visit) const override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<std::unique_ptr<TraceExport>> ExportTrace(
      const v1::ExportTraceRequest& request) const override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::ListDamagedSpansResponse> ListDamagedSpans(
      const v1::ListDamagedSpansRequest& request) const override
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  absl::Status Recover();
  absl::Status RecoverRun(const std::string& run_dir, const std::string& run);
  // A span folder at start-up: its manifest and segments, repaired; nullopt
  // when there is nothing to keep (a folder made just before a crash, nothing
  // acknowledged).
  absl::StatusOr<std::optional<SpanEntry>> RecoverSpan(
      const std::string& span_dir, const std::string& span_id,
      const std::string& worker_key);
  void ReleaseLease(SpanEntry* span) ABSL_LOCKS_EXCLUDED(mu_);
  // Builds the worker's profile from its closed spans and stores it as the next
  // generation; a failure is kept as the worker's profile_problem (design note
  // 7). Returns the profile built (nullopt when the worker has no closed span).
  // A cache fill: const, on mutable fields.
  absl::StatusOr<std::optional<v1::WorkerProfile>> StoreWorkerProfile(
      const std::string& run, const WorkerEntry* worker) const
      ABSL_LOCKS_EXCLUDED(mu_);
  const RunEntry* FindRun(const std::string& run) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // `detail`: GetRun's (closed ranks, and workers with kWorkers); nullopt for
  // ListRuns (counts only).
  v1::StoredRun Summarize(const RunEntry& run, std::optional<RunDetail> detail,
                          absl::Time now) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const StoreOptions options_;
  base::Env& env_;  // *options_.env
  // Held while the store is open (design note 6).
  const std::unique_ptr<base::FileLockHandle> lock_;
  std::vector<std::string> recovery_notes_;
  // Serialises creating folders and writing span manifests (rare: once per span
  // open/close). Lock order: create_mu_ before mu_.
  absl::Mutex create_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  mutable absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<RunEntry>> runs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_LOCAL_LOCAL_STORE_H_
