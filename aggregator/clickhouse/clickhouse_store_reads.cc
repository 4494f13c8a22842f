// The ClickHouse store's RunStore reads: runs, spans read back, profiles and
// exports.
#include <algorithm>
#include <map>
#include <optional>
#include <thread>
#include <utility>

#include "aggregator/clickhouse/clickhouse_store.h"
#include "aggregator/clickhouse/internal/store_parts.h"
#include "aggregator/clickhouse/row_binary.h"
#include "aggregator/store/batch_codec.h"
#include "aggregator/store/read_requests.h"
#include "aggregator/store/run_state.h"
#include "aggregator/store/worker_selector.h"
#include "base/log.h"
#include "base/parse_int.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {

using clickhouse::RowBinaryReader;

using namespace clickhouse_parts;  // NOLINT(google-build-using-namespace): this
                                   // store's own parts

namespace {

// One chunk's stored batch, a view into a read's answer.
struct StoredChunk {
  uint64_t attempt = 0;
  uint64_t raw_bytes = 0;
  std::string_view compressed;
};

// One span's chunks out of a read answer, decompressed one at a time.
class ChunkCursor final : public BatchCursor {
 public:
  ChunkCursor(std::shared_ptr<const std::string> answer,
              std::vector<StoredChunk> chunks, std::string span)
      : answer_(std::move(answer)),
        chunks_(std::move(chunks)),
        span_(std::move(span)) {}

  absl::StatusOr<std::optional<std::string_view>> Next() override {
    if (next_ == chunks_.size()) return std::nullopt;
    const StoredChunk& chunk = chunks_[next_];
    absl::StatusOr<std::string_view> raw =
        decompressor_.Decompress(chunk.compressed, chunk.raw_bytes);
    if (!raw.ok())
      return base::Annotate(raw.status(),
                            base::StrCat("span ", span_, " chunk ", next_));
    ++next_;
    return std::optional<std::string_view>(*raw);
  }

 private:
  const std::shared_ptr<const std::string> answer_;  // what `chunks_` view into
  const std::vector<StoredChunk> chunks_;
  const std::string span_;
  BatchDecompressor decompressor_;
  size_t next_ = 0;
};

}  // namespace

absl::StatusOr<ClickHouseStore::RunRows> ClickHouseStore::ReadRuns(
    const std::vector<std::string>& runs,
    const std::vector<std::string>& workers) const {
  RunRows rows;
  if (runs.empty()) return rows;
  std::string in = base::StrCat("run IN (", QuotedList(runs), ")");
  if (!workers.empty())
    base::StrAppend(&in, " AND worker IN (", QuotedList(workers), ")");
  PD_ASSIGN_OR_RETURN(
      const std::string span_rows,
      Read(base::StrCat("SELECT run, worker, span, argMax(header, state), "
                        "max(state), argMax(chunk_count, state), "
                        "argMax(event_count, state), min(opened_ms), "
                        "max(closed_ms) FROM spans WHERE ",
                        in,
                        " GROUP BY run, worker, span ORDER BY run, worker, "
                        "span FORMAT RowBinary")));
  RowBinaryReader spans(span_rows);
  while (!spans.done() && spans.ok()) {
    SpanRow row;
    row.run = spans.String();
    row.worker = spans.String();
    row.span = spans.String();
    const std::string_view header = spans.String();
    row.state = spans.Number<uint8_t>();
    row.chunk_count = spans.Number<int64_t>();
    row.event_count = spans.Number<int64_t>();
    row.opened_ms = spans.Number<int64_t>();
    row.closed_ms = spans.Number<int64_t>();
    if (!row.header.ParseFromArray(header.data(),
                                   static_cast<int>(header.size()))) {
      return absl::DataLossError(
          base::StrCat("run ", row.run, " span ", row.span,
                       ": stored header does not parse"));
    }
    rows.spans.push_back(std::move(row));
  }
  PD_RETURN_IF_ERROR(spans.status("the spans read"));

  PD_ASSIGN_OR_RETURN(
      const std::string chunk_rows,
      Read(base::StrCat("SELECT run, worker, span, count(), sum(events), "
                        "sum(bytes), max(ms) FROM ("
                        "SELECT run, worker, span, seq, argMax(event_count, "
                        "attempt) AS events, "
                        "argMax(batch_bytes, attempt) AS bytes, max(stored_ms) "
                        "AS ms FROM chunks WHERE ",
                        in,
                        " GROUP BY run, worker, span, seq) GROUP BY run, "
                        "worker, span FORMAT RowBinary")));
  RowBinaryReader chunks(chunk_rows);
  while (!chunks.done() && chunks.ok()) {
    std::string run(chunks.String()), worker(chunks.String()),
        span(chunks.String());
    ChunkTotals& totals = rows.chunks[{run, worker, span}];
    totals.chunks = static_cast<int64_t>(chunks.Number<uint64_t>());
    totals.events = static_cast<int64_t>(chunks.Number<uint64_t>());
    totals.bytes = static_cast<int64_t>(chunks.Number<uint64_t>());
    totals.last_ms = chunks.Number<int64_t>();
  }
  PD_RETURN_IF_ERROR(chunks.status("the ledger read"));

  PD_ASSIGN_OR_RETURN(
      const std::string profile_rows,
      Read(base::StrCat(
          "SELECT run, worker, max(generation), argMax(spans, generation), "
          "argMax(step_count, generation) FROM profiles WHERE ",
          in, " GROUP BY run, worker FORMAT RowBinary")));
  RowBinaryReader profiles(profile_rows);
  while (!profiles.done() && profiles.ok()) {
    std::string run(profiles.String()), worker(profiles.String());
    RunRows::Profile& profile = rows.profiles[{run, worker}];
    profiles.Number<uint64_t>();  // the generation: argMax picked the rows of
                                  // the latest
    profile.spans = profiles.StringArray();
    profile.step_count = profiles.Number<int32_t>();
  }
  PD_RETURN_IF_ERROR(profiles.status("the profiles read"));
  return rows;
}

// The span rows of one worker of one run (rows.spans is ordered by run, worker,
// span), and the latest span: its header says who the worker is now.

std::vector<ClickHouseStore::WorkerRows> ClickHouseStore::WorkersOf(
    const RunRows& rows, const std::string& run) {
  std::vector<WorkerRows> workers;
  for (const SpanRow& span : rows.spans) {
    if (span.run != run) continue;
    if (workers.empty() || workers.back().worker != span.worker)
      workers.push_back({span.worker, {}, &span, {}, {}});
    WorkerRows& worker = workers.back();
    worker.spans.push_back(&span);
    if (span.opened_ms >= worker.latest->opened_ms) worker.latest = &span;
  }
  for (WorkerRows& worker : workers) {
    std::vector<ClosedSpanVersion> closed;
    for (const SpanRow* span : worker.spans) {
      if (span->closed())
        closed.push_back(
            {span->span, &span->header, span->opened_ms, span->closed_ms});
    }
    worker.replaced = FindReplacedSpans(closed);
    for (const SpanRow* span : worker.spans) {
      if (worker.Counts(*span)) worker.closed_ids.push_back(span->span);
    }
  }
  return workers;
}

v1::StoredRun ClickHouseStore::Summarize(const std::string& run,
                                         const RunRows& rows,
                                         std::optional<RunDetail> detail,
                                         absl::Time now) const {
  const bool with_workers = detail == RunDetail::kWorkers;
  v1::StoredRun out;
  out.set_run(run);
  RunActivity activity;
  int64_t created_ms = 0;
  int64_t last_ms = 0;
  int32_t workers = 0;
  ClosedRanks closed_ranks;
  for (const WorkerRows& worker : WorkersOf(rows, run)) {
    ++workers;
    v1::WorkerSummary* summary = with_workers ? out.add_workers() : nullptr;
    for (const SpanRow* span : worker.spans) {
      auto totals_it = rows.chunks.find({run, worker.worker, span->span});
      const ChunkTotals totals =
          totals_it == rows.chunks.end() ? ChunkTotals{} : totals_it->second;
      const int64_t events = span->closed() ? span->event_count : totals.events;
      out.set_event_count(out.event_count() + events);
      created_ms = created_ms == 0 ? span->opened_ms
                                   : std::min(created_ms, span->opened_ms);
      last_ms =
          std::max({last_ms, span->opened_ms, span->closed_ms, totals.last_ms});
      if (!span->closed()) ++activity.open_spans;
      if (summary == nullptr) continue;
      v1::SpanSummary* s = summary->add_spans();
      s->set_span(span->span);
      s->set_agent_id(span->header.agent_id());
      if (span->header.has_local_uid()) {
        s->set_local_uid(span->header.local_uid());
      }
      s->set_state(span->closed() ? v1::SPAN_STATE_CLOSED
                                  : v1::SPAN_STATE_OPEN);
      s->set_durable_sequence(totals.chunks - 1);
      s->set_event_count(events);
      s->set_stored_bytes(totals.bytes);
      s->set_opened_unix_ms(span->opened_ms);
      s->set_closed_unix_ms(span->closed_ms);
      s->set_content_fingerprint(span->header.content_fingerprint());
    }
    activity.world_size =
        std::max(activity.world_size, worker.info().world_size());
    if (!worker.closed_ids.empty())
      closed_ranks.Add(worker.info().rank(), worker.worker);
    for (const ReplacedSpan& replaced : worker.replaced)
      out.add_warnings(ReplacedSpanWarning(worker.worker, replaced));
    if (summary != nullptr) {
      *summary->mutable_worker() = worker.info();
      summary->mutable_worker()->set_run(run);
      // GetProfile serves every worker with a closed span (rebuilding a profile
      // that does not cover them all yet), as the local store does.
      auto profile = rows.profiles.find({run, worker.worker});
      summary->set_profile_ready(!worker.closed_ids.empty());
      int32_t step_count =
          profile != rows.profiles.end() ? profile->second.step_count : 0;
      if (profile == rows.profiles.end() ||
          profile->second.spans != worker.closed_ids) {
        // Built here and not stored yet (profile_rows_ flush), or stored
        // before a later span closed.
        if (std::optional<int32_t> cached =
                profile_cache_.StepCount(run, worker.worker, worker.closed_ids))
          step_count = *cached;
      }
      summary->set_step_count(step_count);
    }
  }
  closed_ranks.AddWarnings(out);
  if (detail.has_value()) closed_ranks.AddRanks(out);
  activity.closed_ranks = closed_ranks.count();
  activity.last_activity = absl::FromUnixMillis(last_ms);
  out.set_created_unix_ms(created_ms);
  out.set_updated_unix_ms(last_ms);
  out.set_world_size(activity.world_size);
  out.set_worker_count(workers);
  out.set_closed_worker_count(activity.closed_ranks);
  out.set_state(RunStateOf(activity, now, options_.partial_after));
  return out;
}

absl::StatusOr<v1::ListRunsResponse> ClickHouseStore::ListRuns(
    const v1::ListRunsRequest& request) const {
  PD_ASSIGN_OR_RETURN(const int page_size, ListRunsPageSize(request));
  std::string sql = base::StrCat("SELECT DISTINCT run FROM spans WHERE run > ",
                                 Quote(request.page_token()));
  if (!request.filter().empty())
    base::StrAppend(&sql, " AND position(run, ", Quote(request.filter()),
                    ") > 0");
  base::StrAppend(&sql, " ORDER BY run LIMIT ", page_size + 1,
                  " FORMAT RowBinary");
  PD_ASSIGN_OR_RETURN(const std::string answer, Read(sql));
  std::vector<std::string> runs;
  RowBinaryReader reader(answer);
  while (!reader.done() && reader.ok()) runs.emplace_back(reader.String());
  PD_RETURN_IF_ERROR(reader.status("the runs list"));
  v1::ListRunsResponse response;
  const bool more = runs.size() > static_cast<size_t>(page_size);
  if (more) runs.resize(static_cast<size_t>(page_size));
  PD_ASSIGN_OR_RETURN(const RunRows rows, ReadRuns(runs));
  const absl::Time now = absl::Now();
  for (const std::string& run : runs)
    *response.add_runs() = Summarize(run, rows, std::nullopt, now);
  if (more) response.set_next_page_token(runs.back());
  return response;
}

absl::StatusOr<v1::StoredRun> ClickHouseStore::GetRun(const std::string& run,
                                                      RunDetail detail) const {
  PD_ASSIGN_OR_RETURN(const RunRows rows, ReadRuns({run}));
  if (rows.spans.empty())
    return absl::NotFoundError(base::StrCat("run ", run, ": no such run"));
  return Summarize(run, rows, detail, absl::Now());
}

absl::StatusOr<std::vector<StoredSpan>> ClickHouseStore::ReadSpans(
    const std::string& run, const std::vector<SpanRow>& spans) const {
  std::string pairs;
  for (const SpanRow& span : spans) {
    base::StrAppend(&pairs, pairs.empty() ? "" : ",", "(", Quote(span.worker),
                    ",", Quote(span.span), ")");
  }
  // Every stored attempt, the latest chosen here rather than by argMax:
  // aggregating megabytes of batches would copy them all on the servers, and a
  // chunk stored twice is rare.
  PD_ASSIGN_OR_RETURN(
      std::string answer,
      Read(base::StrCat(
          "SELECT worker, span, seq, attempt, batch_bytes, batch_zstd "
          "FROM chunks WHERE run = ",
          Quote(run), " AND (worker, span) IN (", pairs,
          ") FORMAT RowBinary")));
  // The answer is kept alive by the spans' readers, which visit views into it.
  auto shared = std::make_shared<const std::string>(std::move(answer));
  std::map<std::pair<std::string, std::string>, std::map<int64_t, StoredChunk>>
      batches;
  RowBinaryReader reader(*shared);
  while (!reader.done() && reader.ok()) {
    const std::string_view worker = reader.String();
    const std::string_view span = reader.String();
    const int64_t seq = reader.Number<int64_t>();
    const uint64_t attempt = reader.Number<uint64_t>();
    const uint64_t raw_bytes = reader.Number<uint64_t>();
    const std::string_view compressed = reader.String();
    const StoredChunk chunk{attempt, raw_bytes, compressed};
    auto [it, first] =
        batches[{std::string(worker), std::string(span)}].try_emplace(seq,
                                                                      chunk);
    if (!first && attempt > it->second.attempt) it->second = chunk;
  }
  PD_RETURN_IF_ERROR(reader.status("the batches read"));
  std::vector<StoredSpan> out;
  for (const SpanRow& span : spans) {
    std::vector<StoredChunk> chunks;
    for (const auto& [seq, chunk] : batches[{span.worker, span.span}]) {
      if (seq != static_cast<int64_t>(chunks.size())) {
        return absl::DataLossError(base::StrCat(
            "span ", span.span, ": the ledger has no chunk ", chunks.size()));
      }
      chunks.push_back(chunk);
    }
    if (span.closed() &&
        static_cast<int64_t>(chunks.size()) != span.chunk_count) {
      return absl::DataLossError(
          base::StrCat("span ", span.span, ": closed with ", span.chunk_count,
                       " chunks, the ledger holds ", chunks.size()));
    }
    out.push_back({span.span, span.header.worker(),
                   [shared, chunks = std::move(chunks), id = span.span]()
                       -> absl::StatusOr<std::unique_ptr<BatchCursor>> {
                     return std::make_unique<ChunkCursor>(shared, chunks, id);
                   }});
  }
  return out;
}

absl::Status ClickHouseStore::VisitProfiles(
    const v1::GetProfileRequest& request, ProfileVisitor visit) const {
  // Profiles read per query (and kept ones read back ahead): a few workers'
  // worth of memory at a time.
  constexpr size_t kProfilesPerRead = 8;
  const RequestedProfile requested = ProfileOptionsOf(request);
  const analysis::ProfileOptions& options = requested.options;
  const bool stored_grouping = requested.stored_options;
  const uint64_t generation =
      NewGeneration();  // for profiles rebuilt and cached below
  PD_ASSIGN_OR_RETURN(std::vector<Wanted> wanted,
                      SelectWorkers(request.run(), request.workers()));
  // Profiles this replica built lately serve without a read (a thousand-rank
  // digest made as the run completes reads none back).
  std::vector<bool> cached(wanted.size(), false);
  for (size_t i = 0; i < wanted.size(); ++i) {
    Wanted& entry = wanted[i];
    cached[i] =
        stored_grouping &&
        profile_cache_.Covers(request.run(), entry.worker, entry.closed_ids);
    entry.stored = entry.stored && stored_grouping && !cached[i];
  }
  // Kept profiles of the entries [first, end), read back (decompressed and
  // parsed): the next read's on another thread while the caller visits this
  // one's, so a thousand-rank digest reduces one profile while the next is
  // decoded.
  const auto read_kept =
      [&](size_t first, size_t end,
          std::vector<std::optional<v1::WorkerProfile>>& out) {
        out.assign(end - first, std::nullopt);
        for (size_t i = first; i < end; ++i) {
          if (cached[i]) {
            out[i - first] = profile_cache_.Find(
                request.run(), wanted[i].worker, wanted[i].closed_ids);
          }
        }
      };
  std::vector<std::optional<v1::WorkerProfile>> kept, kept_next;
  read_kept(0, std::min(wanted.size(), kProfilesPerRead), kept);
  for (size_t first = 0; first < wanted.size(); first += kProfilesPerRead) {
    const size_t end = std::min(wanted.size(), first + kProfilesPerRead);
    const size_t next_end = std::min(wanted.size(), end + kProfilesPerRead);
    std::jthread ahead;  // joined before kept_next is read, or on return
    if (end < next_end)
      ahead = std::jthread([&] { read_kept(end, next_end, kept_next); });
    std::vector<std::string> stored_workers;
    for (size_t i = first; i < end; ++i) {
      if (wanted[i].stored) stored_workers.push_back(wanted[i].worker);
    }
    std::map<std::string, v1::WorkerProfile> stored;
    if (!stored_workers.empty()) {
      PD_ASSIGN_OR_RETURN(
          const std::string answer,
          Read(base::StrCat("SELECT worker, argMax((profile_bytes, "
                            "profile_zstd), generation) FROM profiles WHERE "
                            "run = ",
                            Quote(request.run()), " AND worker IN (",
                            QuotedList(stored_workers),
                            ") GROUP BY worker FORMAT RowBinary")));
      RowBinaryReader reader(answer);
      BatchDecompressor decompressor;
      while (!reader.done() && reader.ok()) {
        const std::string worker(reader.String());
        const uint64_t raw_bytes = reader.Number<uint64_t>();
        const std::string_view compressed = reader.String();
        if (!reader.ok()) break;
        absl::StatusOr<std::string_view> bytes =
            decompressor.Decompress(compressed, raw_bytes);
        if (!bytes.ok() ||
            !stored[worker].ParseFromArray(bytes->data(),
                                           static_cast<int>(bytes->size()))) {
          return absl::DataLossError(base::StrCat(
              "run ", request.run(), " worker ", worker, ": stored profile ",
              bytes.ok() ? "does not parse" : bytes.status().message()));
        }
      }
      PD_RETURN_IF_ERROR(reader.status("the profiles read"));
    }
    for (size_t i = first; i < end; ++i) {
      Wanted& entry = wanted[i];
      // Not read back (evicted since Covers, when the cache is too small for
      // the read): built below then.
      if (std::optional<v1::WorkerProfile>& profile = kept[i - first]) {
        PD_RETURN_IF_ERROR(visit(*std::move(profile)));
        continue;
      }
      auto found = stored.find(entry.worker);
      if (entry.stored && found != stored.end()) {
        PD_RETURN_IF_ERROR(visit(std::move(found->second)));
        continue;
      }
      PD_ASSIGN_OR_RETURN(const std::vector<StoredSpan> spans,
                          ReadSpans(request.run(), entry.closed));
      PD_ASSIGN_OR_RETURN(
          v1::WorkerProfile built,
          BuildProfile(request.run(), spans, options_.batch_limits, options));
      if (stored_grouping) {
        // Store it for the next read; a failure here only costs that read a
        // rebuild.
        absl::StatusOr<size_t> home = HomeShard(request.run(), entry.worker);
        if (home.ok()) {
          absl::Status cached =
              InsertProfile(request.run(), entry.worker, *home, generation,
                            built, entry.closed_ids);
          if (!cached.ok())
            PD_LOG(WARNING, "profile of %s/%s not cached: %s", request.run(),
                   entry.worker, cached.message());
        }
      }
      PD_RETURN_IF_ERROR(visit(std::move(built)));
    }
    if (ahead.joinable()) ahead.join();
    kept.swap(kept_next);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<TraceExport>> ClickHouseStore::ExportTrace(
    const v1::ExportTraceRequest& request) const {
  PD_ASSIGN_OR_RETURN(const RunRows rows, ReadRuns({request.run()}));
  if (rows.spans.empty())
    return absl::NotFoundError(
        base::StrCat("run ", request.run(), ": no such run"));
  std::vector<WorkerRows> matched;
  std::string names;
  for (WorkerRows& worker : WorkersOf(rows, request.run())) {
    base::StrAppend(&names, names.empty() ? "" : ", ", worker.worker);
    if (Selected(request.worker(), worker.info()))
      matched.push_back(std::move(worker));
  }
  if (matched.size() != 1) {
    return absl::InvalidArgumentError(base::StrCat(
        "run ", request.run(), ": ", DescribeSelector(request.worker()),
        " selects ", matched.size(),
        " workers, expected exactly one (workers: ", names, ")"));
  }
  std::vector<SpanRow> chosen;
  for (const SpanRow* span : matched.front().spans) {
    if (request.span().empty() ? matched.front().Counts(*span)
                               : span->span == request.span())
      chosen.push_back(*span);
  }
  if (chosen.empty()) {
    if (!request.span().empty()) {
      return absl::NotFoundError(
          base::StrCat("run ", request.run(), ": no span ", request.span()));
    }
    return absl::FailedPreconditionError(base::StrCat(
        "run ", request.run(), " worker ", matched.front().info().worker_name(),
        ": no closed span to export yet"));
  }
  if (!chosen.front().closed()) {
    return absl::FailedPreconditionError(
        base::StrCat("span ", request.span(), " is still being uploaded"));
  }
  // The compressed chunks are read up front (one answer); the JSON is made
  // piece by piece.
  PD_ASSIGN_OR_RETURN(std::vector<StoredSpan> spans,
                      ReadSpans(request.run(), chosen));
  return ExportSpans(std::move(spans), options_.batch_limits);
}

absl::StatusOr<std::vector<int64_t>> ClickHouseStore::EventsPerShard(
    const std::string& run) const {
  PD_RETURN_IF_ERROR(EventsTableIsOn());
  PD_RETURN_IF_ERROR(FlushEventRows());
  std::vector<int64_t> counts;
  for (const auto& shard : shards_) {
    PD_ASSIGN_OR_RETURN(
        const std::string answer,
        shard->Query(base::StrCat(
            "SELECT count() FROM events_local WHERE run = ", Quote(run),
            " AND (worker, span, seq, attempt) GLOBAL IN (SELECT worker, span, "
            "seq, "
            "max(attempt) FROM chunks WHERE run = ",
            Quote(run), " GROUP BY worker, span, seq) FORMAT TSV")));
    int64_t count = 0;
    if (!base::ParseInt64(StripNewline(answer), count)) {
      return absl::DataLossError(base::StrCat(
          "clickhouse ", shard->address(), ": a count that is not a number"));
    }
    counts.push_back(count);
  }
  return counts;
}

}  // namespace profdiff::aggregator
