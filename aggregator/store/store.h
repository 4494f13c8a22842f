// The contract every run store keeps, whichever backend holds the data: the
// local data folder (aggregator/local/local_store.h) or a sharded ClickHouse
// cluster (aggregator/clickhouse/clickhouse_store.h). What every backend checks
// of an upload is in upload_rules.h; opening one from flags is the server's
// (aggregator/open_store.h). The Collector and RunStore services talk only to
// this interface.
//
// Contract (tests/aggregator/collector_test.cc runs it against both backends):
// 1. A chunk is acknowledged (AppendChunk returns) only once it is durable in
//    the store; the durable sequence OpenSpan reports is the store's, so an
//    agent resumes after its last acknowledged chunk even on another aggregator
//    replica.
// 2. A chunk at or below the durable sequence is a duplicate and ignored; a
//    retried write never counts an event twice.
// 3. A refused chunk (bad batch, a limit, out of order) changes nothing stored.
// 4. Run state (OPEN / COMPLETE / PARTIAL) follows from the spans stored
//    (aggregator/store/run_state.h).
// 5. Reads never answer with part of a run: when some of it cannot be read they
//    fail.
// 6. A span's content is fixed: a header whose content_fingerprint differs from
//    the stored span's is refused (AlreadyExists), never acknowledged as stored
//    nor mixed into it.
// 7. A run's world size comes from its workers' distributedInfo; a span whose
//    distributedInfo names another world size is refused (FailedPrecondition,
//    naming both values).
#ifndef PROFDIFF_AGGREGATOR_STORE_STORE_H_
#define PROFDIFF_AGGREGATOR_STORE_STORE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/functional/any_invocable.h>
#include <absl/functional/function_ref.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <absl/time/time.h>

#include "base/env.h"
#include "profdiff/v1/collector.pb.h"
#include "profdiff/v1/digest.pb.h"
#include "profdiff/v1/run_store.pb.h"
#include "trace/event_batch.h"

namespace profdiff::aggregator {

// A Chrome-trace export produced on demand, piece by piece, so a slow reader
// holds one stored chunk's worth of memory on the server, not the whole
// document (aggregator/store/stored_spans.h).
class TraceExport {
 public:
  virtual ~TraceExport() = default;
  // Replaces `piece` with the next part of the JSON document: about `max_bytes`
  // (one event may go past it). False, with `piece` empty, once the document is
  // complete. DataLoss when stored events are damaged.
  virtual absl::StatusOr<bool> NextPiece(size_t max_bytes,
                                         std::string& piece) = 0;
};

struct StoreOptions {
  // Backend: the local data folder, unless `clickhouse_url` is set
  // (clickhouse://HOST:HTTP_PORT[,HOST:HTTP_PORT...]/DB, one address per
  // shard).
  std::string data_dir;
  std::string clickhouse_url;
  std::string clickhouse_cluster =
      "profdiff";  // the servers' remote_servers cluster
  uint64_t max_segment_bytes = 64
                               << 20;  // local: segment files roll at this size
  uint64_t max_span_bytes = uint64_t{16} << 30;  // stored bytes of one span
  absl::Duration partial_after =
      absl::Minutes(10);  // OPEN -> PARTIAL when idle this long
  // ClickHouse: how often the `events` rows of stored chunks that have none
  // (held by a replica that died) are made from the ledger (the first time
  // after at most a minute), and how old a chunk must be for that (younger
  // ones may still be held by a live replica, which stores them within a
  // second).
  absl::Duration events_repair_interval = absl::Minutes(10);
  absl::Duration events_repair_grace = absl::Minutes(1);
  // ClickHouse: whether the `events` table (a row per event, a copy for SQL:
  // every read of the store uses the ledger) is filled. Filling it costs the
  // servers ~a third more CPU an event at a thousand ranks, so it is filled
  // only where asked or where it already holds rows (a deployment that has
  // been filling it goes on). Turned on later, the repair fills it from the
  // ledger for every chunk stored while it was off.
  enum class EventsTable {
    kAuto,   // fill it when it holds rows on some shard at Open
    kFill,   // fill it
    kLeave,  // leave it empty
  };
  EventsTable events_table = EventsTable::kAuto;
  // ClickHouse: while rows keep coming (some queued while a shard's commit
  // ran), its next commit starts this long after the last one started, so the
  // rows of more streams go in one part; a lone chunk goes at once. 0: every
  // commit starts as soon as rows wait.
  absl::Duration clickhouse_commit_interval = absl::Milliseconds(150);
  trace::EventBatchLimits batch_limits;
  // local: every file, folder and clock reading goes through it (tests pass an
  // in-memory or fault-injecting one). Not owned; outlives the store.
  base::Env* env = base::Env::Default();
};

// How much GetRun says: the summary (state, counts, version, the ranks with a
// closed span), or that and every worker with its spans.
enum class RunDetail { kSummary, kWorkers };

class Store {
 public:
  // The right to append to one span, held by one upload stream; released when
  // destroyed.
  class SpanLease {
   public:
    virtual ~SpanLease() = default;
  };

  struct OpenedSpan {
    std::unique_ptr<SpanLease> lease;  // null when the span is already closed
    int64_t durable_sequence = -1;
    bool closed = false;
  };

  virtual ~Store() = default;

  // What opening the store found and repaired, one line each, for the log.
  virtual const std::vector<std::string>& recovery_notes() const = 0;
  // Where the data is, for the log.
  virtual std::string Describe() const = 0;

  // Starts or resumes the span `header` names. InvalidArgument for bad
  // ids/ranks; Aborted when another stream holds the span.
  virtual absl::StatusOr<OpenedSpan> OpenSpan(
      const v1::UploadHeader& header) = 0;
  // Stores `chunk` durably and returns the span's durable sequence (see the
  // contract above). InvalidArgument: out-of-order sequence, a batch that does
  // not decode; ResourceExhausted: batch or span limits; FailedPrecondition:
  // the span is closed; Unavailable: the store cannot be written now (the agent
  // retries).
  virtual absl::StatusOr<int64_t> AppendChunk(SpanLease& lease,
                                              const v1::TraceChunk& chunk) = 0;

  // What StartAppendChunk reports: the chunk's sequence once it is durable (for
  // a duplicate, the durable sequence), or why not. With earlier chunks still
  // in flight the span's durable sequence may be lower: a caller acknowledging
  // answers in chunk order, and none after a failure, acknowledges only durable
  // prefixes.
  using AppendDone = absl::AnyInvocable<void(absl::StatusOr<int64_t>)>;
  // AppendChunk without waiting for the store's write, so a stream can hand
  // over its next chunk while this one is stored: `done` runs once the chunk is
  // durable or refused, on whichever thread finished it (possibly inline,
  // before this returns). The caller starts a lease's appends one at a time
  // (the next once this returns), keeps the lease until every `done` ran, and
  // calls CloseSpan only after that. `chunk` is not used after this returns. A
  // chunk that fails after later ones were handed over leaves the lease
  // refusing appends (Unavailable) until those are done; then it continues from
  // the durable sequence. The default runs AppendChunk.
  virtual void StartAppendChunk(SpanLease& lease, const v1::TraceChunk& chunk,
                                AppendDone done) {
    done(AppendChunk(lease, chunk));
  }
  // Closes the span after checking `end` against what is stored
  // (InvalidArgument when chunk or event counts differ), and has its worker's
  // profile rebuilt: the local store before it returns, the ClickHouse store in
  // the background (its reads build a profile not stored yet). Idempotent.
  virtual absl::Status CloseSpan(SpanLease& lease, const v1::SpanEnd& end) = 0;
  // CloseSpan without holding the calling thread while the store writes:
  // `done` gets CloseSpan's answer, on whichever thread finished it (possibly
  // inline, before this returns). The caller keeps the lease until `done` ran;
  // `end` is not used after this returns. The default runs CloseSpan (the
  // local store's close builds the profile on the calling thread).
  using CloseDone = absl::AnyInvocable<void(absl::Status)>;
  virtual void StartCloseSpan(SpanLease& lease, const v1::SpanEnd& end,
                              CloseDone done) {
    done(CloseSpan(lease, end));
  }
  // Offers to close the span with the write of its last chunk, which is
  // still in flight: true when the store took the close (`done` then gets
  // StartCloseSpan's answer, after that chunk's AppendDone ran), false when
  // the caller closes it as usual once no chunk is in flight. The default
  // takes none.
  virtual bool TryCloseWithLastChunk(SpanLease& /*lease*/,
                                     const v1::SpanEnd& /*end*/,
                                     CloseDone& /*done*/) {
    return false;
  }

  // RunStore reads. NotFound for an unknown run or worker; InvalidArgument for
  // bad requests.
  virtual absl::StatusOr<v1::ListRunsResponse> ListRuns(
      const v1::ListRunsRequest& request) const = 0;
  virtual absl::StatusOr<v1::StoredRun> GetRun(const std::string& run,
                                               RunDetail detail) const = 0;
  // Calls `visit` with the profile of each selected worker with a closed
  // span, by rank (then name), one at a time: a run of a thousand ranks is
  // never in memory at once. NotFound when no worker matches;
  // FailedPrecondition when none has a closed span yet; `visit`'s error ends
  // the visit and is returned.
  using ProfileVisitor =
      absl::FunctionRef<absl::Status(v1::WorkerProfile profile)>;
  virtual absl::Status VisitProfiles(const v1::GetProfileRequest& request,
                                     ProfileVisitor visit) const = 0;
  // Every profile VisitProfiles visits, in one RunProfile.
  absl::StatusOr<v1::RunProfile> GetProfile(
      const v1::GetProfileRequest& request) const;
  // The run reduced over the workers `request` names (analysis/run_digest.h)
  // from one visit of every worker's profile (collectives are matched over
  // all of them). Errors as VisitProfiles; InvalidArgument when none of the
  // ranks asked for has a closed span.
  absl::StatusOr<v1::RunDigest> GetRunDigest(
      const v1::GetRunDigestRequest& request) const;
  // The Chrome-trace JSON of one worker's closed spans (or of one span),
  // produced as it is read. NotFound / InvalidArgument for the request;
  // DataLoss when stored events are damaged (also from NextPiece);
  // FailedPrecondition for a span still uploading.
  virtual absl::StatusOr<std::unique_ptr<TraceExport>> ExportTrace(
      const v1::ExportTraceRequest& request) const = 0;
  // Profile builds of `run` this replica has queued and not stored yet (the
  // ClickHouse store builds them in the background after CloseSpan); a digest
  // of a COMPLETE run waits for them rather than build them again
  // (aggregator/run_digests.h, design note 5). The default: none.
  virtual int ProfileBuildsPending(const std::string& /*run*/) const {
    return 0;
  }
  // A run digest kept in the store (aggregator/run_digests.h) under `key` for
  // the run's `version`, so that replicas and restarts share it: nullopt when
  // none is kept. Kept digests are framed (aggregator/store/kept_digest.h):
  // one that is not whole, or was made for another run, key or version, is
  // DataLoss naming where it is kept, never returned. The default keeps none.
  virtual absl::StatusOr<std::optional<v1::RunDigest>> LoadDigest(
      const std::string& /*run*/, const std::string& /*key*/,
      const std::string& /*version*/) const {
    return std::nullopt;
  }
  virtual absl::Status SaveDigest(const std::string& /*run*/,
                                  const std::string& /*key*/,
                                  const std::string& /*version*/,
                                  const v1::RunDigest& /*digest*/) const {
    return absl::OkStatus();
  }
  // Spans found damaged (INCOMPLETE) that their agents should send again: those
  // `request`'s agent sent and those whose sender is unknown (at most 1000).
  // The default: none.
  virtual absl::StatusOr<v1::ListDamagedSpansResponse> ListDamagedSpans(
      const v1::ListDamagedSpansRequest& request) const;
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_STORE_STORE_H_
