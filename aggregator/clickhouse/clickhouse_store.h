// The run store on a sharded ClickHouse cluster, for aggregator replicas that
// keep no run state of their own (schema: aggregator/clickhouse/schema.h;
// contract: aggregator/store/store.h).
//
// Design:
// 1. Exactly-once by ledger, not by merges. A chunk goes to one shard, in a
//    group commit with other chunks and span state rows (shard_writer.h): the
//    group's span rows, new names, then ledger rows (`chunks`, which hold
//    each chunk's batch), each table one all-or-nothing insert, ledger rows
//    tagged with a fresh random `attempt`; the chunk's `events` rows, a copy
//    for SQL, follow within a second (events_mirror.h), tagged alike, and a
//    ledger row whose rows a dead replica held is made again from its batch
//    (RepairEventRows). It is acknowledged after the ledger row is
//    stored (and, carrying its span's CLOSED row, after that row, which goes
//    in with the span rows of the shard's next commit). Every read counts a
//    chunk once, through the ledger: per (run, worker, span, seq) the ledger
//    row with the largest attempt, and only the event rows of that attempt. A
//    retried insert, an aggregator that died between its inserts, or two
//    replicas racing on one span leave extra rows that no read counts.
//    (ReplacingMergeTree alone would deduplicate only when ClickHouse happens
//    to merge parts, and never across shards, so queries would need FINAL
//    everywhere.) The ledger is ReplacingMergeTree(attempt), so merges keep
//    exactly the row reads choose.
// 2. Nothing lives only in a replica: OpenSpan reads the span's state, home
//    shard and the worker's other spans off the span rows, then (for a span
//    with a row) the durable sequence from the ledger. A new span's OPEN row
//    is stored with its first chunk, in the same group commit before the
//    chunk's rows (so a span with a chunk has a row; a span opened and not
//    yet sent to is nowhere, as a file not yet uploaded); run
//    state derives from the spans and chunks rows
//    (aggregator/store/run_state.h), and a span lease is the state of one
//    stream. Any replica serves any agent and any read.
// 3. Shard down, writes fail over: a worker's rows go to its home shard; when
//    that shard does not answer, the whole chunk (events and ledger row) goes
//    to the next shard that does, and the ack waits for that. Reads are
//    through the Distributed tables and fail (Unavailable, naming the shard)
//    while any shard is down, since ClickHouse would otherwise answer from
//    part of the data. Only the write path's durable-sequence lookup skips an
//    unreachable shard: it can only make an agent send chunks again, which the
//    ledger counts once.
// 4. Profiles are a cache: built in the background after a span closes (the
//    close is acknowledged once the span's CLOSED row is stored, in its home
//    shard's next group commit, or with the span rows of the commit after
//    its last chunk's when the end comes while the chunk still waits, so an
//    agent never waits on a build and, under load, a span of one chunk adds
//    no insert) and
//    stored with the span ids they cover; a read whose stored profile does not
//    cover exactly the closed spans (not built yet, or not buildable while a
//    shard was down) rebuilds it from the ledger's batches. A span one stream
//    sent whole, its worker's only one here, is built from the batches that
//    stream kept (no read back), and every build is also kept in this replica's
//    memory (profile_cache.h), which reads take when its span ids match. Of
//    two builds, the later generation wins: a ledger build's is taken before
//    it reads the spans, a batch build's before its CLOSED row is stored, so
//    a build that saw more closed spans outranks one that saw fewer.
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_CLICKHOUSE_STORE_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_CLICKHOUSE_STORE_H_

#include <atomic>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/container/flat_hash_map.h>
#include <absl/synchronization/mutex.h>

#include "aggregator/clickhouse/http_client.h"
#include "aggregator/clickhouse/profile_cache.h"
#include "aggregator/clickhouse/run_names.h"
#include "aggregator/clickhouse/shard_writer.h"
#include "aggregator/clickhouse/span_state_lookup.h"
#include "aggregator/store/store.h"
#include "aggregator/store/stored_spans.h"
#include "base/thread_pool.h"
#include "profdiff/v1/profile.pb.h"

namespace profdiff::aggregator {

class ClickHouseStore final : public Store {
 public:
  class Lease;

  // Connects to every shard of `options.clickhouse_url` and creates the
  // database and tables where missing. Unavailable when a shard does not
  // answer.
  static absl::StatusOr<std::unique_ptr<ClickHouseStore>> Open(
      const StoreOptions& options);
  ~ClickHouseStore() override;

  const std::vector<std::string>& recovery_notes() const override {
    return notes_;
  }
  std::string Describe() const override;

  absl::StatusOr<OpenedSpan> OpenSpan(const v1::UploadHeader& header) override
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<int64_t> AppendChunk(Store::SpanLease& lease,
                                      const v1::TraceChunk& chunk) override;
  void StartAppendChunk(Store::SpanLease& lease, const v1::TraceChunk& chunk,
                        AppendDone done) override;
  absl::Status CloseSpan(Store::SpanLease& lease,
                         const v1::SpanEnd& end) override;
  // The CLOSED row goes with the home shard's next group commit; `done` runs
  // on the writer's thread once it is stored.
  void StartCloseSpan(Store::SpanLease& lease, const v1::SpanEnd& end,
                      CloseDone done) override;
  // Adds the CLOSED row to the last chunk's rows while they wait for their
  // group commit (stored after its ledger row, with the next commit's span
  // rows, or not at all): under load, a span of one chunk then adds no insert
  // of its own.
  bool TryCloseWithLastChunk(Store::SpanLease& lease, const v1::SpanEnd& end,
                             CloseDone& done) override;
  absl::StatusOr<v1::ListRunsResponse> ListRuns(
      const v1::ListRunsRequest& request) const override;
  absl::StatusOr<v1::StoredRun> GetRun(const std::string& run,
                                       RunDetail detail) const override;
  // Stored profiles are read a few workers at a time; one not stored yet
  // (or another grouping) is built from the stored events.
  absl::Status VisitProfiles(const v1::GetProfileRequest& request,
                             ProfileVisitor visit) const override;
  absl::StatusOr<std::unique_ptr<TraceExport>> ExportTrace(
      const v1::ExportTraceRequest& request) const override;
  int ProfileBuildsPending(const std::string& run) const override;
  // Kept in the `digests` table: one row per (run, key, version), on the
  // shard of (run, key), framed (aggregator/store/kept_digest.h): a row that
  // is not whole or not the one asked for is DataLoss naming it. A row saved
  // outranks (made_ms) every row kept for that version.
  absl::StatusOr<std::optional<v1::RunDigest>> LoadDigest(
      const std::string& run, const std::string& key,
      const std::string& version) const override;
  absl::Status SaveDigest(const std::string& run, const std::string& key,
                          const std::string& version,
                          const v1::RunDigest& digest) const override;

  // Profiles this replica built at a span's close from the batches its stream
  // kept, rather than from the ledger (for tests and operators).
  int64_t profiles_built_from_batches() const ABSL_LOCKS_EXCLUDED(mu_);
  // Spans this replica closed in the commit of their last chunk
  // (TryCloseWithLastChunk), for tests and operators.
  int64_t spans_closed_with_last_chunk() const {
    return closed_with_last_chunk_.load();
  }
  // While held, rows queued for the shards wait for their commit (tests that
  // need them still queued).
  void HoldWritesForTesting(bool hold);

  // The opening spans' state lookups (span_state_lookup.h), for tests and
  // operators: queries sent, and (while held) lookups waiting.
  const clickhouse::SpanStateLookup& span_state_lookup() const {
    return span_states_;
  }
  void HoldSpanLookupsForTesting(bool hold) {
    span_states_.HoldForTesting(hold);
  }

  // Whether this store fills the `events` table: StoreOptions::events_table,
  // kAuto resolved at Open (filled when it held rows on some shard).
  bool fills_events_table() const {
    return options_.events_table == StoreOptions::EventsTable::kFill;
  }
  // How many event rows of `run` each shard holds, counted through the ledger
  // (for tests and operators checking the spread), once the rows held for the
  // `events` table are stored. This and RepairEventRows are FailedPrecondition
  // when the store does not fill the `events` table.
  absl::StatusOr<std::vector<int64_t>> EventsPerShard(
      const std::string& run) const;
  // Stores the `events` rows every shard's mirror holds now.
  absl::Status FlushEventRows() const;
  // Makes the `events` rows of ledger rows stored at least `grace` ago that
  // have none (their replica died holding them, or a shard refused them), on
  // every shard; returns how many chunks it made. The store runs it every
  // StoreOptions::events_repair_interval (the first time within a minute);
  // `grace` leaves the rows live replicas still hold to them.
  absl::StatusOr<int64_t> RepairEventRows(absl::Duration grace) const;
  // Forgets the `events` rows held, as a replica that died would (tests).
  void DropHeldEventRowsForTesting();
  // While held, the mirrors flush only when asked (FlushEventRows), so a test
  // knows which rows are held.
  void HoldEventFlushesForTesting(bool hold);

 private:
  struct Passkey {};

 public:
  ClickHouseStore(Passkey, StoreOptions options,
                  std::vector<std::unique_ptr<clickhouse::HttpClient>> shards);

 private:
  struct SpanRow;
  struct ChunkTotals;
  struct RunRows;
  struct WorkerRows;
  struct InFlightChunk;
  struct ClosedSpanBatches;
  // A worker a read selected: its closed spans, and whether a stored profile
  // covers exactly them.
  struct Wanted {
    int32_t rank;
    std::string name;
    std::string worker;
    std::vector<SpanRow> closed;
    std::vector<std::string> closed_ids;
    bool stored = false;
  };
  // The selected workers of `run` with a closed span, by rank; NotFound for an
  // unknown run or a selector matching no worker, FailedPrecondition when none
  // has a closed span.
  absl::StatusOr<std::vector<Wanted>> SelectWorkers(
      const std::string& run, const v1::WorkerSelector& selector) const;

  // Checks `chunk` against the lease, encodes its rows and counts it in flight;
  // null for a chunk already durable.
  absl::StatusOr<std::unique_ptr<InFlightChunk>> PrepareChunk(
      Lease& lease, const v1::TraceChunk& chunk);
  // A shard writer's answer for `chunk`: retries it on the next shard when this
  // one did not answer, else settles it on the lease and reports it.
  void ChunkWritten(std::unique_ptr<InFlightChunk> chunk,
                    const absl::Status& status);

  // Inserts `data` into `table`_local on `shard`, or the next shards in turn
  // while one is unreachable; returns the shard that took it.
  absl::StatusOr<size_t> InsertFailingOver(size_t shard,
                                           const std::string& table,
                                           const std::string& data) const;
  absl::StatusOr<size_t> HomeShard(const std::string& run,
                                   const std::string& worker) const;
  // A read through the Distributed tables, on the first shard that answers;
  // Unavailable when a shard it needs is down, unless `skip_unreachable`
  // (write-path lookups only: design 3).
  absl::StatusOr<std::string> Read(const std::string& sql,
                                   bool skip_unreachable = false) const;
  // The spans, ledger totals and profile rows of `runs` (of `workers` only,
  // when given).
  absl::StatusOr<RunRows> ReadRuns(
      const std::vector<std::string>& runs,
      const std::vector<std::string>& workers = {}) const;
  static std::vector<WorkerRows> WorkersOf(const RunRows& rows,
                                           const std::string& run);
  // `detail`: GetRun's (closed ranks, and workers with kWorkers); nullopt for
  // ListRuns (counts only).
  v1::StoredRun Summarize(const std::string& run, const RunRows& rows,
                          std::optional<RunDetail> detail,
                          absl::Time now) const;
  // Profiles' rows in RowBinary for the profiles table.
  struct ProfileRows {
    std::string profiles;
    int count = 0;  // profiles
    // Whose (run, worker) they are, to build from the ledger when the rows
    // cannot be stored (only filled for rows built from batches).
    std::vector<std::pair<std::string, std::string>> workers;
  };
  // Builds the profiles of `workers` of `run` (worker, home shard) from their
  // closed spans, unless a stored one covers them, and appends their rows to
  // `by_shard` for the caller to store: the spans and ledger of all of them
  // in a few reads (a pass of the builder), their batches a bounded number
  // of bytes at a time. A worker that fails is logged and left for the first
  // read to build.
  void BuildWorkerProfiles(
      const std::string& run,
      const std::vector<std::pair<std::string, size_t>>& workers,
      std::map<size_t, ProfileRows>& by_shard) const;
  // Appends the profile's row to `out` and keeps it in profile_cache_: it is
  // serialized and compressed once for both.
  void AppendProfileRows(const std::string& run, const std::string& worker,
                         uint64_t generation, const v1::WorkerProfile& profile,
                         const std::vector<std::string>& span_ids,
                         ProfileRows& out) const;
  // Inserts the profiles rows into `shard` (or the next that answers).
  absl::Status InsertProfileRows(size_t shard, const ProfileRows& rows) const;
  // Contract 7 against the run's stored spans; a world size this replica has
  // checked for the run already is not looked up again.
  absl::Status CheckWorldSize(const v1::UploadHeader& header)
      ABSL_LOCKS_EXCLUDED(mu_);
  // What a close decided before its CLOSED row is stored: whether the
  // worker's profile is built from the batches the stream kept (counted in
  // pending_builds_ then), and the build's generation.
  struct CloseBuild {
    bool kept = false;
    uint64_t generation = 0;
  };
  CloseBuild PrepareCloseBuild(Lease& lease, bool kept_batches)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The CLOSED row is stored (`stored` OK) or not: schedules the worker's
  // profile build, or gives back what PrepareCloseBuild counted.
  void CloseStored(Lease& lease, const CloseBuild& build,
                   const absl::Status& stored) ABSL_LOCKS_EXCLUDED(mu_);
  // Queues span state `rows` for the group commit of shard `home` + `tried`
  // (or the next that answers); `done` runs on a writer's thread once they are
  // stored or no shard takes them (Unavailable).
  void SubmitSpanRows(size_t home, size_t tried, std::string rows,
                      absl::AnyInvocable<void(absl::Status)> done);
  // The spans (of one or several workers of `run`), in order, with their
  // batches read from the ledger in one query.
  absl::StatusOr<std::vector<StoredSpan>> ReadSpans(
      const std::string& run, const std::vector<SpanRow>& spans) const;
  absl::Status InsertProfile(const std::string& run, const std::string& worker,
                             size_t shard, uint64_t generation,
                             const v1::WorkerProfile& profile,
                             const std::vector<std::string>& span_ids) const;
  void ReleaseLease(const std::string& key) ABSL_LOCKS_EXCLUDED(mu_);
  // Queues a build of the worker's profile, unless one is queued already.
  void ScheduleProfileBuild(const std::string& run, const std::string& worker,
                            size_t shard) ABSL_LOCKS_EXCLUDED(mu_);
  // The builder: builds every queued profile, stores them together, until none
  // is queued.
  void BuildQueuedProfiles() ABSL_LOCKS_EXCLUDED(mu_);
  // Reserves `bytes` of the budget for batches kept for close-time builds;
  // false (nothing reserved) when it is spent.
  bool ReserveKeptBatchBytes(size_t bytes);
  void ReleaseKeptBatchBytes(size_t bytes);
  // Queues the profile build of a closed span whose every batch its stream
  // kept: built on the builds pool from memory, kept in `profile_cache_` at
  // once (a digest waiting on the run reads it there) and stored with the
  // next flush of `profile_rows_`.
  void ScheduleBuildFromBatches(ClosedSpanBatches closed)
      ABSL_LOCKS_EXCLUDED(mu_);
  // A build of `run` counted in pending_builds_ ended (or never started).
  void BuildEnded(const std::string& run) ABSL_LOCKS_EXCLUDED(mu_);
  void BuildFromBatches(ClosedSpanBatches closed) ABSL_LOCKS_EXCLUDED(mu_);
  // Inserts the profile rows built from batches, every second or every
  // kFlushProfilesAt of them, until the store stops.
  void FlushProfileRowsLoop() ABSL_LOCKS_EXCLUDED(mu_);
  // FailedPrecondition unless fills_events_table().
  absl::Status EventsTableIsOn() const;
  // RepairEventRows every events_repair_interval until the store stops.
  void RepairEventRowsLoop() ABSL_LOCKS_EXCLUDED(mu_);

  const StoreOptions options_;
  const std::vector<std::unique_ptr<clickhouse::HttpClient>> shards_;
  // One per shard: the events rows beside the ack (before the writers, which
  // hand them their rows).
  std::vector<std::unique_ptr<clickhouse::EventsMirror>> event_mirrors_;
  std::vector<std::unique_ptr<clickhouse::ShardWriter>>
      writers_;  // one per shard, group commit
  std::vector<std::string> notes_;
  mutable absl::Mutex mu_;
  std::set<std::string> leased_
      ABSL_GUARDED_BY(mu_);  // spans this replica is writing
  // (run, world size) pairs contract 7 passed here: the spans of one run of a
  // thousand ranks need not each ask the store again.
  std::set<std::pair<std::string, int32_t>> world_sizes_checked_
      ABSL_GUARDED_BY(mu_);
  // (run, worker) -> spans of it opened here (a span is built from its
  // batches only when it is the one).
  absl::flat_hash_map<std::pair<std::string, std::string>, int> worker_opens_
      ABSL_GUARDED_BY(mu_);
  // (run, worker) -> home shard, waiting for the builder.
  std::map<std::pair<std::string, std::string>, size_t> builds_queued_
      ABSL_GUARDED_BY(mu_);
  // Builds queued or in a pass not stored yet, per run.
  std::map<std::string, int> pending_builds_ ABSL_GUARDED_BY(mu_);
  bool builder_running_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // The names each run's chunks carried here (run_names.h).
  clickhouse::RunNames run_names_{size_t{1} << 20};
  // Profiles built here lately, for digests and reads (profile_cache.h).
  mutable clickhouse::ProfileCache profile_cache_;
  std::atomic<int64_t> kept_batch_bytes_{0};
  std::atomic<int64_t> closed_with_last_chunk_{0};
  // Rows of profiles built from batches, by home shard, not stored yet.
  std::map<size_t, ProfileRows> profile_rows_ ABSL_GUARDED_BY(mu_);
  int profile_rows_count_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t built_from_batches_ ABSL_GUARDED_BY(mu_) = 0;
  std::jthread profile_flusher_;
  std::jthread event_repairer_;
  // Opening spans' state, looked up together (span_state_lookup.h).
  clickhouse::SpanStateLookup span_states_;
  // Two threads: builds from batches need not wait for a ledger pass (one
  // runs at a time). Last: destroyed first, while what its work uses is
  // alive.
  base::ThreadPool builds_{2};
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_CLICKHOUSE_STORE_H_
