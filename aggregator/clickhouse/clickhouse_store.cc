// The ClickHouse store: opening it, and the write path (spans, chunks, leases).
#include "aggregator/clickhouse/clickhouse_store.h"

#include <set>
#include <utility>

#include <absl/random/random.h>
#include <absl/strings/str_split.h>
#include <absl/synchronization/notification.h>

#include "aggregator/clickhouse/clickhouse_url.h"
#include "aggregator/clickhouse/event_rows.h"
#include "aggregator/clickhouse/internal/store_parts.h"
#include "aggregator/clickhouse/row_binary.h"
#include "aggregator/clickhouse/schema.h"
#include "aggregator/store/upload_rules.h"
#include "aggregator/store/worker_selector.h"
#include "base/log.h"
#include "base/parse_int.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {

using clickhouse::HttpClient;
using clickhouse::RowBinaryReader;
using clickhouse::RowBinaryWriter;

using namespace clickhouse_parts;  // NOLINT(google-build-using-namespace): this
                                   // store's own parts

namespace {

// Profiles kept in memory for digests and reads, at most (profile_cache.h).
constexpr size_t kProfileCacheBytes = size_t{256} << 20;

// A spans row (schema.cc's column order) for the lease's span in `state`.
std::string SpanStateRow(const ClickHouseStore::Lease& lease, uint8_t state,
                         int64_t chunks, int64_t events, int64_t closed_ms) {
  std::string row;
  RowBinaryWriter writer(row);
  const v1::WorkerInfo& info = lease.header.worker();
  writer.String(lease.run);
  writer.String(lease.worker);
  writer.String(lease.span);
  writer.Number<int32_t>(info.rank());
  writer.Number<int32_t>(info.world_size());
  writer.String(info.worker_name());
  writer.String(lease.header.agent_id());
  writer.String(lease.header.SerializeAsString());
  writer.Number<uint8_t>(state);
  writer.Number<int64_t>(chunks);
  writer.Number<int64_t>(events);
  writer.Number<int64_t>(lease.opened_ms);
  writer.Number<int64_t>(closed_ms);
  return row;
}

}  // namespace

ClickHouseStore::ClickHouseStore(
    Passkey, StoreOptions options,
    std::vector<std::unique_ptr<HttpClient>> shards)
    : options_(std::move(options)),
      shards_(std::move(shards)),
      profile_cache_(kProfileCacheBytes),
      span_states_(shards_.size(), [this](const std::string& sql) {
        return Read(sql, /*skip_unreachable=*/true);
      }) {
  for (const auto& shard : shards_) {
    if (fills_events_table()) {
      event_mirrors_.push_back(
          std::make_unique<clickhouse::EventsMirror>(shard.get()));
    }
    writers_.push_back(std::make_unique<clickhouse::ShardWriter>(
        shard.get(),
        fills_events_table() ? event_mirrors_.back().get() : nullptr,
        options_.clickhouse_commit_interval));
  }
  profile_flusher_ = std::jthread([this] { FlushProfileRowsLoop(); });
  if (fills_events_table())
    event_repairer_ = std::jthread([this] { RepairEventRowsLoop(); });
}

ClickHouseStore::~ClickHouseStore() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;  // queued profile builds are dropped: reads rebuild what
                       // is missing
  }
  // Every writer stops before any is destroyed: a chunk failing on one moves on
  // to another.
  for (const auto& writer : writers_) writer->Stop();
  // Then the events rows of what they stored, in one last flush each.
  for (const auto& mirror : event_mirrors_) mirror->Stop();
}

namespace {

// Tables an older profdiff created keep their old columns (CREATE TABLE IF NOT
// EXISTS leaves them be), and every write to them would then fail: refuse to
// start instead, naming what is missing.
absl::Status CheckColumns(const HttpClient& shard, const std::string& address,
                          const std::string& database) {
  PD_ASSIGN_OR_RETURN(
      const std::string answer,
      shard.Query(base::StrCat(
          "SELECT table, name FROM system.columns WHERE database = ",
          Quote(database), " FORMAT TSV")));
  std::set<std::pair<std::string, std::string>> present;
  for (absl::string_view line :
       absl::StrSplit(base::ToAbsl(answer), '\n', absl::SkipEmpty())) {
    const size_t tab = line.find('\t');
    if (tab == absl::string_view::npos) continue;
    present.insert(
        {std::string(line.substr(0, tab)), std::string(line.substr(tab + 1))});
  }
  for (const auto& [local, columns] : clickhouse::LocalTableColumns()) {
    // The Distributed table over it too: it was made AS the local table and
    // kept its columns.
    for (const std::string& table :
         {local,
          local.substr(0, local.size() - std::string_view("_local").size())}) {
      for (const std::string& column : columns) {
        if (!present.contains({table, column})) {
          return absl::FailedPreconditionError(
              base::StrCat("clickhouse ", address, ": table ", database, ".",
                           table, " has no column ", column,
                           ": it was created by an older profdiff; point "
                           "--store at a new database (docs/scale-out.md, "
                           "\"Upgrading\")"));
        }
      }
    }
  }
  return absl::OkStatus();
}

// The rows `database`.events_local holds on one shard (from its parts'
// counts: no data is read).
absl::StatusOr<int64_t> EventRows(const HttpClient& shard,
                                  const std::string& address,
                                  const std::string& database) {
  const absl::StatusOr<std::string> answer = shard.Query(
      base::StrCat("SELECT sum(rows) FROM system.parts WHERE active AND "
                   "database = ",
                   Quote(database), " AND table = 'events_local' FORMAT TSV"),
      kWholeAnswer);
  if (!answer.ok()) {
    return base::Annotate(
        answer.status(),
        "counting the events rows (--clickhouse-events-table=auto)");
  }
  int64_t rows = 0;
  if (!base::ParseInt64(StripNewline(*answer), rows)) {
    return absl::DataLossError(
        base::StrCat("clickhouse ", address, ": ", database,
                     ".events_local's row count is not a number: ",
                     base::QuoteBytes(StripNewline(*answer))));
  }
  return rows;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ClickHouseStore>> ClickHouseStore::Open(
    const StoreOptions& options) {
  PD_ASSIGN_OR_RETURN(const clickhouse::ClickHouseUrl url,
                      clickhouse::ParseClickHouseUrl(options.clickhouse_url));
  std::vector<std::unique_ptr<HttpClient>> shards;
  StoreOptions resolved = options;
  int64_t event_rows = 0;  // in the events table, when asked whether to fill
  for (const std::string& address : url.shards) {
    HttpClient bootstrap(address, "", kQueryTimeout);
    PD_RETURN_IF_ERROR(
        bootstrap
            .Query(base::StrCat("CREATE DATABASE IF NOT EXISTS ", url.database))
            .status());
    // A database from before the `events` rows left the acknowledged path
    // has them for every chunk but no markers saying so; without the markers
    // the repair would make them all again.
    PD_ASSIGN_OR_RETURN(
        const std::string had_markers,
        bootstrap.Query(base::StrCat("EXISTS TABLE ", url.database,
                                     ".events_stored_local FORMAT TSV")));
    for (const std::string& statement : clickhouse::SchemaStatements(
             url.database, options.clickhouse_cluster)) {
      PD_RETURN_IF_ERROR(base::Annotate(bootstrap.Query(statement).status(),
                                        "creating the schema"));
    }
    if (StripNewline(had_markers) != "1") {
      PD_RETURN_IF_ERROR(base::Annotate(
          bootstrap
              .Query(base::StrCat(
                  "INSERT INTO ", url.database,
                  ".events_stored_local SELECT run, worker, span, seq, attempt "
                  "FROM ",
                  url.database, ".events_local WHERE idx = 0"))
              .status(),
          "marking the events rows stored before events_stored"));
    }
    PD_RETURN_IF_ERROR(CheckColumns(bootstrap, address, url.database));
    if (resolved.events_table == StoreOptions::EventsTable::kAuto) {
      PD_ASSIGN_OR_RETURN(const int64_t rows,
                          EventRows(bootstrap, address, url.database));
      event_rows += rows;
    }
    shards.push_back(
        std::make_unique<HttpClient>(address, url.database, kQueryTimeout));
  }
  // The cluster the Distributed tables read must have these shards, or reads
  // would miss data.
  PD_ASSIGN_OR_RETURN(
      const std::string cluster,
      shards.front()->Query(base::StrCat(
          "SELECT uniqExact(shard_num) FROM system.clusters WHERE cluster = ",
          Quote(options.clickhouse_cluster), " FORMAT TSV")));
  int64_t cluster_shards = 0;
  if (!base::ParseInt64(StripNewline(cluster), cluster_shards)) {
    return absl::DataLossError(
        base::StrCat("clickhouse ", url.shards.front(),
                     ": a shard count that is not a number"));
  }
  if (cluster_shards != static_cast<int64_t>(url.shards.size())) {
    return absl::FailedPreconditionError(base::StrCat(
        "clickhouse ", url.shards.front(), ": cluster \"",
        options.clickhouse_cluster, "\" has ", cluster_shards,
        " shards in remote_servers, but --store names ", url.shards.size(),
        " (give one address per shard, or --clickhouse-cluster NAME)"));
  }
  if (resolved.events_table == StoreOptions::EventsTable::kAuto) {
    resolved.events_table = event_rows > 0 ? StoreOptions::EventsTable::kFill
                                           : StoreOptions::EventsTable::kLeave;
    PD_LOG(INFO, "%s",
           event_rows > 0
               ? base::StrCat("clickhouse: filling the events table, which "
                              "holds ",
                              event_rows,
                              " rows (--clickhouse-events-table=false leaves "
                              "it as it is)")
               : std::string("clickhouse: the events table is empty and is "
                             "not filled (--clickhouse-events-table=true "
                             "fills it, from the ledger for what is stored "
                             "already)"));
  }
  return std::make_unique<ClickHouseStore>(Passkey{}, std::move(resolved),
                                           std::move(shards));
}

std::string ClickHouseStore::Describe() const {
  return base::StrCat("clickhouse ", options_.clickhouse_url, " cluster ",
                      options_.clickhouse_cluster);
}

absl::StatusOr<std::string> ClickHouseStore::Read(const std::string& sql,
                                                  bool skip_unreachable) const {
  absl::Status last;
  for (const auto& shard : shards_) {
    absl::StatusOr<std::string> answer = shard->Query(
        sql, skip_unreachable ? kSkipUnreachableShards : kWholeAnswer);
    if (answer.ok() || !absl::IsUnavailable(answer.status())) return answer;
    last = answer.status();
    // Another shard can run the read when this one is down; a read that needs
    // the down shard fails there too, naming it.
  }
  if (skip_unreachable)
    return absl::UnavailableError(
        base::StrCat("no shard answers: ", last.message()));
  return absl::UnavailableError(
      base::StrCat(last.message(),
                   " (no answer with every shard: refusing a partial read)"));
}

absl::StatusOr<size_t> ClickHouseStore::HomeShard(
    const std::string& run, const std::string& worker) const {
  PD_ASSIGN_OR_RETURN(
      const std::string answer,
      Read(base::StrCat("SELECT cityHash64(", Quote(run), ", ", Quote(worker),
                        ") % ", shards_.size(), " FORMAT TSV"),
           /*skip_unreachable=*/true));
  int64_t shard = 0;
  if (!base::ParseInt64(StripNewline(answer), shard) || shard < 0 ||
      static_cast<size_t>(shard) >= shards_.size()) {
    return absl::DataLossError(base::StrCat("clickhouse: home shard answer \"",
                                            answer, "\" is not a shard index"));
  }
  return static_cast<size_t>(shard);
}

absl::StatusOr<size_t> ClickHouseStore::InsertFailingOver(
    size_t shard, const std::string& table, const std::string& data) const {
  absl::Status last;
  for (size_t tried = 0; tried < shards_.size(); ++tried) {
    const size_t index = (shard + tried) % shards_.size();
    absl::Status status = shards_[index]->Insert(
        base::StrCat("INSERT INTO ", table, "_local FORMAT RowBinary"), data);
    if (status.ok()) return index;
    if (!absl::IsUnavailable(status)) return status;
    last = status;
  }
  return absl::UnavailableError(
      base::StrCat("no shard takes writes: ", last.message()));
}

void ClickHouseStore::ReleaseLease(const std::string& key) {
  absl::MutexLock lock(&mu_);
  leased_.erase(key);
}

absl::Status ClickHouseStore::CheckWorldSize(const v1::UploadHeader& header) {
  const v1::WorkerInfo& worker = header.worker();
  if (!worker.distributed_info_present()) return absl::OkStatus();
  const std::pair<std::string, int32_t> checked = {header.run(),
                                                   worker.world_size()};
  {
    absl::MutexLock lock(&mu_);
    if (world_sizes_checked_.contains(checked)) return absl::OkStatus();
  }
  // Only spans that disagree can matter; a few are enough to find one that has
  // distributedInfo.
  PD_ASSIGN_OR_RETURN(
      const std::string rows,
      Read(base::StrCat(
               "SELECT header FROM spans WHERE run = ", Quote(header.run()),
               " AND world_size != ", worker.world_size(),
               " LIMIT 16 FORMAT RowBinary"),
           /*skip_unreachable=*/true));
  RowBinaryReader reader(rows);
  WorldSizeAgreement agreement;
  while (!reader.done() && reader.ok()) {
    const std::string_view bytes = reader.String();
    v1::UploadHeader stored;
    if (stored.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      agreement.Note(stored.worker());
  }
  PD_RETURN_IF_ERROR(reader.status("the world size lookup"));
  PD_RETURN_IF_ERROR(agreement.Check(header.run(), worker));
  // Bounded: a replica that has seen many runs starts the set again.
  constexpr size_t kMaxChecked = 1 << 16;
  absl::MutexLock lock(&mu_);
  if (world_sizes_checked_.size() >= kMaxChecked) world_sizes_checked_.clear();
  world_sizes_checked_.insert(checked);
  return absl::OkStatus();
}

void ClickHouseStore::SubmitSpanRows(
    size_t home, size_t tried, std::string rows,
    absl::AnyInvocable<void(absl::Status)> done) {
  auto group = std::make_shared<clickhouse::ChunkRows>();
  group->spans = std::move(rows);
  writers_[(home + tried) % shards_.size()]->Submit(
      group,
      [this, home, tried, group,
       done = std::move(done)](const absl::Status& answer) mutable {
        if (!absl::IsUnavailable(answer)) return done(answer);
        if (tried + 1 == shards_.size()) {
          return done(absl::UnavailableError(
              base::StrCat("no shard takes writes: ", answer.message())));
        }
        SubmitSpanRows(home, tried + 1, std::move(group->spans),
                       std::move(done));
      },
      // From a writer's thread, which must not wait on another writer.
      /*wait_for_room=*/tried == 0);
}

absl::StatusOr<Store::OpenedSpan> ClickHouseStore::OpenSpan(
    const v1::UploadHeader& header) {
  PD_RETURN_IF_ERROR(ValidateUploadHeader(header));
  const std::string worker =
      WorkerKey(header.worker().rank(), header.worker().worker_name());
  const std::string where = base::StrCat("run = ", Quote(header.run()),
                                         " AND worker = ", Quote(worker),
                                         " AND span = ", Quote(header.span()));
  auto lease = std::make_unique<Lease>(
      this, base::StrCat(header.run(), "/", worker, "/", header.span()));
  {
    absl::MutexLock lock(&mu_);
    if (!leased_.insert(lease->key_).second) {
      lease->key_.clear();  // not ours to release
      return absl::AbortedError(base::StrCat(
          "span ", header.span(), " of run ", header.run(),
          " is being uploaded by another stream; retry when it has ended"));
    }
    // Bounded: a replica that has seen many workers counts again (a worker
    // then may build a profile of one span from batches while another span
    // of it closed, which reads still find out; design note 4).
    constexpr size_t kMaxWorkersCounted = 1 << 16;
    if (worker_opens_.size() >= kMaxWorkersCounted) worker_opens_.clear();
    ++worker_opens_[{header.run(), worker}];
  }
  // What opening needs, read off the worker's span rows (with the rows of
  // every other span opening now: span_state_lookup.h): its stored state, the
  // worker's home shard and whether it has other spans; then, for a span with a
  // stored row only, the ledger's chunks (the durable prefix). A span with no
  // row has no chunk: its OPEN row is stored with its first chunk, before it
  // (unless the shard holding its rows is down now: the lookup skips it, and
  // the agent sends the chunks again, which the ledger counts once).
  PD_ASSIGN_OR_RETURN(
      const clickhouse::SpanState stored,
      span_states_.Lookup({header.run(), worker, header.span()}));
  const uint8_t stored_state = stored.state;
  const int64_t closed_chunks = stored.chunk_count;
  const int64_t opened_ms = stored.opened_ms;
  const std::string& stored_header_bytes = stored.header;
  const size_t home = stored.home;
  const uint64_t other_spans = stored.other_spans;
  struct LedgerChunk {
    int64_t seq;
    uint32_t events;
    uint64_t bytes;
  };
  std::vector<LedgerChunk> ledger;
  if (stored_state == clickhouse::kSpanOpen) {
    PD_ASSIGN_OR_RETURN(
        const std::string ledger_rows,
        Read(base::StrCat("SELECT seq, argMax(event_count, attempt), "
                          "argMax(batch_bytes, attempt) FROM chunks WHERE ",
                          where, " GROUP BY seq ORDER BY seq FORMAT RowBinary"),
             /*skip_unreachable=*/true));
    RowBinaryReader rows(ledger_rows);
    while (!rows.done() && rows.ok()) {
      LedgerChunk chunk;
      chunk.seq = rows.Number<int64_t>();
      chunk.events = rows.Number<uint32_t>();
      chunk.bytes = rows.Number<uint64_t>();
      ledger.push_back(chunk);
    }
    PD_RETURN_IF_ERROR(rows.status("the span's ledger lookup"));
  }
  v1::UploadHeader stored_header;
  if (stored_state != 0 && stored_header.ParseFromArray(
                               stored_header_bytes.data(),
                               static_cast<int>(stored_header_bytes.size()))) {
    PD_RETURN_IF_ERROR(CheckSameContent(stored_header, header));  // contract 6
  }
  if (stored_state == clickhouse::kSpanClosed)
    return OpenedSpan{nullptr, closed_chunks - 1, true};
  PD_RETURN_IF_ERROR(
      CheckWorldSize(header));  // contract 7; a closed span passed it already

  int64_t durable = -1;
  {
    absl::MutexLock lock(&lease->mu);
    for (const LedgerChunk& chunk : ledger) {
      if (chunk.seq != lease->stored.durable() + 1) break;
      lease->stored.Stored(chunk.seq, chunk.events, chunk.bytes);
    }
    lease->accepted = durable = lease->stored.durable();
    lease->accepted_bytes = lease->stored.bytes();
    // A new span that is its worker's only one: its close builds the worker's
    // profile from the batches this stream saw (Lease::batches), not from the
    // servers. A span another stream began, or a worker with other spans,
    // is built from the ledger as before.
    lease->keep_batches =
        durable == -1 && stored_state == 0 && other_spans == 0;
  }

  lease->header = header;
  lease->run = header.run();
  lease->worker = worker;
  lease->span = header.span();
  lease->home = static_cast<size_t>(home);
  lease->opened_ms =
      stored_state == clickhouse::kSpanOpen ? opened_ms : NowMillis();
  if (stored_state != clickhouse::kSpanOpen) {
    // Stored in the group commit of the span's first chunk, not on its own: a
    // commit of its own per span was one of three, and each took an insert of
    // the servers at a thousand ranks.
    absl::MutexLock lock(&lease->mu);
    lease->open_row = SpanStateRow(*lease, clickhouse::kSpanOpen, 0, 0, 0);
  }
  return OpenedSpan{std::move(lease), durable, false};
}

absl::StatusOr<int64_t> ClickHouseStore::AppendChunk(
    Store::SpanLease& lease, const v1::TraceChunk& chunk) {
  absl::StatusOr<int64_t> result;
  absl::Notification stored;
  StartAppendChunk(lease, chunk, [&](absl::StatusOr<int64_t> answer) {
    result = std::move(answer);
    stored.Notify();
  });
  stored.WaitForNotification();
  return result;
}

void ClickHouseStore::StartAppendChunk(Store::SpanLease& any_lease,
                                       const v1::TraceChunk& chunk,
                                       AppendDone done) {
  Lease& lease = static_cast<Lease&>(any_lease);  // leases come from OpenSpan
  absl::StatusOr<std::unique_ptr<InFlightChunk>> prepared =
      PrepareChunk(lease, chunk);
  if (!prepared.ok()) return done(prepared.status());
  if (*prepared == nullptr) {  // a duplicate: already durable
    int64_t durable = 0;
    {
      absl::MutexLock lock(&lease.mu);
      durable = lease.stored.durable();
    }
    return done(durable);
  }
  InFlightChunk& in_flight = **prepared;
  in_flight.done = std::move(done);
  {
    absl::MutexLock lock(&lease.mu);
    lease.newest_in_flight = &in_flight;
  }
  const size_t home = lease.home;
  auto rows = in_flight.rows;
  writers_[home]->Submit(
      std::move(rows),
      [this, owned = *std::move(prepared)](const absl::Status& status) mutable {
        ChunkWritten(std::move(owned), status);
      });
}

absl::StatusOr<std::unique_ptr<ClickHouseStore::InFlightChunk>>
ClickHouseStore::PrepareChunk(Lease& lease, const v1::TraceChunk& chunk) {
  const int64_t sequence = static_cast<int64_t>(chunk.sequence());
  {
    absl::MutexLock lock(&lease.mu);
    if (lease.failed) {
      return absl::UnavailableError(
          base::StrCat("chunk ", sequence,
                       ": an earlier chunk of the span failed and "
                       "later ones are still being stored; retry"));
    }
    if (sequence <= lease.stored.durable()) return nullptr;
    if (sequence != lease.accepted + 1) {
      return absl::InvalidArgumentError(
          base::StrCat("chunk sequence ", sequence,
                       " is out of order: expected ", lease.accepted + 1));
    }
  }
  const v1::EventBatch& batch = chunk.events();
  PD_RETURN_IF_ERROR(
      base::Annotate(trace::ValidateEventBatch(batch, options_.batch_limits),
                     base::StrCat("chunk ", sequence)));
  batch.SerializeToString(&lease.batch_bytes);
  PD_RETURN_IF_ERROR(base::Annotate(
      lease.compressor.Compress(lease.batch_bytes, lease.batch_zstd),
      base::StrCat("chunk ", sequence)));
  const int events = batch.kind_size();

  // The chunk's rows: its strings, its events, its ledger entry.
  auto rows = std::make_shared<clickhouse::ChunkRows>();
  rows->order = {lease.run, lease.worker, lease.span, sequence};
  RowBinaryWriter names(rows->names);
  std::vector<uint64_t> ids(static_cast<size_t>(batch.strings_size()));
  // Names this stream has not sent yet (all again after a failure), of which
  // the chunk carries those no stored chunk of the run carried (run_names.h).
  std::vector<uint64_t> fresh;
  std::vector<int> fresh_index;
  {
    absl::MutexLock lock(&lease.mu);
    for (int i = 0; i < batch.strings_size(); ++i) {
      const uint64_t id = NameId(batch.strings(i));
      ids[static_cast<size_t>(i)] = id;
      if (lease.names_sent.contains(id)) continue;
      fresh.push_back(id);
      fresh_index.push_back(i);
    }
  }
  const std::vector<bool> send = run_names_.Claim(lease.run, fresh);
  std::vector<uint64_t> carried;
  for (size_t k = 0; k < fresh.size(); ++k) {
    if (!send[k]) continue;
    carried.push_back(fresh[k]);
    names.String(lease.run);
    names.String(lease.worker);
    names.Number<uint64_t>(fresh[k]);
    names.String(batch.strings(fresh_index[k]));
  }
  // From here a refused chunk gives back what it claimed.
  const auto refuse = [&](absl::Status status) {
    run_names_.Failed(lease.run, carried);
    return status;
  };
  // Events and ledger row start with the same key and carry the attempt after
  // it: a fresh one for every shard tried, so rows a failed try left behind
  // (say its events stored, its ledger row not) are never the ones reads
  // choose.
  const uint64_t attempt = absl::Uniform<uint64_t>(lease.bits);
  const auto key = [&](RowBinaryWriter& row) {
    row.String(lease.run);
    row.String(lease.worker);
    row.String(lease.span);
    row.Number<int64_t>(sequence);
  };
  const clickhouse::ChunkKey chunk_key{lease.run, lease.worker, lease.span,
                                       sequence, attempt};
  if (fills_events_table()) {
    rows->events_attempts_at =
        clickhouse::AppendEventBlock(chunk_key, batch, ids, rows->events);
    rows->event_count = static_cast<size_t>(events);
    clickhouse::AppendEventMarker(chunk_key, rows->event_marker);
  }
  RowBinaryWriter ledger(rows->ledger);
  key(ledger);
  rows->attempt_offset = rows->ledger.size();
  ledger.Number<uint64_t>(attempt);
  ledger.Number<uint32_t>(static_cast<uint32_t>(events));
  ledger.Number<uint64_t>(lease.batch_bytes.size());
  ledger.Number<int64_t>(NowMillis());
  ledger.String(lease.batch_zstd);

  absl::MutexLock lock(&lease.mu);
  if (lease.failed || sequence != lease.accepted + 1) {
    // An earlier chunk failed while this one was being encoded.
    return refuse(absl::UnavailableError(base::StrCat(
        "chunk ", sequence, ": an earlier chunk of the span failed; retry")));
  }
  if (lease.accepted_bytes + lease.batch_bytes.size() >
      options_.max_span_bytes) {
    return refuse(absl::ResourceExhaustedError(
        base::StrCat("chunk ", sequence, ": span would exceed max_span_bytes (",
                     options_.max_span_bytes, "); ", lease.accepted_bytes,
                     " bytes stored or being stored")));
  }
  if (lease.keep_batches) {
    // Entries past a failed chunk are dropped: this one is sent in their place.
    while (lease.batches.size() > static_cast<size_t>(sequence)) {
      ReleaseKeptBatchBytes(lease.batches.back().size());
      lease.batches_bytes -= lease.batches.back().size();
      lease.batches.pop_back();
    }
    if (ReserveKeptBatchBytes(lease.batch_bytes.size())) {
      lease.batches_bytes += lease.batch_bytes.size();
      lease.batches.push_back(lease.batch_bytes);
    } else {  // over budget: the profile is built from the ledger instead
      ReleaseKeptBatchBytes(lease.batches_bytes);
      lease.batches_bytes = 0;
      lease.batches = {};
      lease.keep_batches = false;
    }
  }
  lease.accepted = sequence;
  lease.accepted_bytes += lease.batch_bytes.size();
  lease.names_sent.insert(fresh.begin(), fresh.end());
  // Its OPEN row goes with every chunk until one carrying it is stored (and
  // with a chunk to another shard if its home does not answer): a chunk of
  // the span is never stored without a row, whichever of them fails. Copies
  // of the row are one row to ReplacingMergeTree.
  rows->spans = lease.open_row;
  ++lease.in_flight;
  return std::make_unique<InFlightChunk>(InFlightChunk{
      &lease, sequence, events, lease.batch_bytes.size(), std::move(rows),
      nullptr, 0, std::move(carried), std::nullopt});
}

void ClickHouseStore::ChunkWritten(std::unique_ptr<InFlightChunk> chunk,
                                   const absl::Status& status) {
  Lease& lease = *chunk->lease;
  const size_t shard = (lease.home + chunk->tried) % shards_.size();
  if (absl::IsUnavailable(status) && chunk->tried + 1 < shards_.size()) {
    // The whole chunk moves on to the next shard, under a fresh attempt (and
    // a CLOSED row added to its rows with it).
    {
      absl::MutexLock lock(&lease.mu);
      ++chunk->tried;
    }
    chunk->rows->SetAttempt(absl::Uniform<uint64_t>(absl::BitGen()));
    const size_t next = (lease.home + chunk->tried) % shards_.size();
    PD_LOG(
        WARNING,
        "chunk %d of %s/%s/%s: shard %d did not answer (%s); trying shard %d",
        chunk->sequence, lease.run, lease.worker, lease.span, shard,
        status.message(), next);
    auto rows = chunk->rows;
    writers_[next]->Submit(
        std::move(rows),
        [this, owned = std::move(chunk)](const absl::Status& retried) mutable {
          ChunkWritten(std::move(owned), retried);
        },
        /*wait_for_room=*/false);
    return;
  }
  absl::StatusOr<int64_t> answer = chunk->sequence;
  if (status.ok()) {
    run_names_.Stored(lease.run, chunk->names);
  } else {
    run_names_.Failed(lease.run, chunk->names);
  }
  std::optional<InFlightChunk::AttachedClose> close;
  {
    absl::MutexLock lock(&lease.mu);
    if (lease.newest_in_flight == chunk.get()) lease.newest_in_flight = nullptr;
    if (status.ok() && !chunk->rows->spans.empty()) lease.open_row.clear();
    close = std::move(chunk->close);
    --lease.in_flight;
    if (status.ok()) {
      lease.stored.Stored(chunk->sequence, chunk->events, chunk->raw_bytes);
    } else {
      lease.failed = true;
      lease.names_sent.clear();
      answer =
          absl::IsUnavailable(status)
              ? absl::UnavailableError(
                    base::StrCat("chunk ", chunk->sequence,
                                 ": no shard takes writes: ", status.message()))
              : base::Annotate(status, base::StrCat("chunk ", chunk->sequence));
    }
    if (lease.failed && lease.in_flight == 0) {
      // Nothing of the span in flight any more: appends continue from what is
      // stored.
      lease.failed = false;
      lease.accepted = lease.stored.durable();
      lease.accepted_bytes = lease.stored.bytes();
      lease.stored.DropAhead();
    }
  }
  if (status.ok() && shard != lease.home) {
    PD_LOG(WARNING,
           "chunk %d of %s/%s/%s stored on shard %d: its home shard %d did not "
           "answer",
           chunk->sequence, lease.run, lease.worker, lease.span, shard,
           lease.home);
  }
  const bool stored = answer.ok();
  std::move(chunk->done)(std::move(answer));
  if (close.has_value()) {
    // After the chunk's ack: the span's close is answered second.
    const absl::Status closed =
        stored ? absl::OkStatus()
               : absl::UnavailableError(
                     base::StrCat("span end: its last chunk was not stored: ",
                                  status.message()));
    CloseStored(lease, close->build, closed);
    std::move(close->done)(closed);
  }
}

absl::Status ClickHouseStore::CloseSpan(Store::SpanLease& lease,
                                        const v1::SpanEnd& end) {
  absl::Status result;
  absl::Notification closed;
  StartCloseSpan(lease, end, [&](const absl::Status& answer) {
    result = answer;
    closed.Notify();
  });
  closed.WaitForNotification();
  return result;
}

void ClickHouseStore::StartCloseSpan(Store::SpanLease& any_lease,
                                     const v1::SpanEnd& end, CloseDone done) {
  Lease& lease = static_cast<Lease&>(any_lease);
  uint64_t chunks = 0;
  int64_t events = 0;
  bool kept = false;
  {
    absl::MutexLock lock(&lease.mu);
    if (lease.in_flight > 0) {
      return done(absl::FailedPreconditionError(
          base::StrCat("span end while ", lease.in_flight,
                       " chunks are still being stored")));
    }
    chunks = static_cast<uint64_t>(lease.stored.durable() + 1);
    events = lease.stored.events();
    kept = lease.keep_batches && lease.batches.size() == chunks;
    // A span with no chunk never stored its OPEN row: the CLOSED row is all.
    lease.open_row.clear();
  }
  if (end.chunk_count() != chunks || end.event_count() != events) {
    return done(absl::InvalidArgumentError(
        base::StrCat("span end says ", end.chunk_count(), " chunks and ",
                     end.event_count(), " events, but ", chunks, " chunks and ",
                     events, " events are stored")));
  }
  const CloseBuild build = PrepareCloseBuild(lease, kept);
  // In the home shard's next group commit, beside other streams' chunks and
  // closes; the lease outlives `done` (Store::StartCloseSpan).
  SubmitSpanRows(lease.home, 0,
                 SpanStateRow(lease, clickhouse::kSpanClosed,
                              static_cast<int64_t>(end.chunk_count()),
                              end.event_count(), NowMillis()),
                 [this, &lease, build,
                  done = std::move(done)](const absl::Status& stored) mutable {
                   CloseStored(lease, build, stored);
                   done(stored);
                 });
}

bool ClickHouseStore::TryCloseWithLastChunk(Store::SpanLease& any_lease,
                                            const v1::SpanEnd& end,
                                            CloseDone& done) {
  Lease& lease = static_cast<Lease&>(any_lease);
  // Lock order: a lease's mu, then a writer's (writers call out with none
  // held).
  absl::MutexLock lock(&lease.mu);
  InFlightChunk* last = lease.newest_in_flight;
  // Only the span's last chunk in flight, every earlier one stored: the
  // CLOSED row stored after that chunk's ledger row is then never stored
  // without a chunk of the span.
  if (last == nullptr || lease.failed || lease.in_flight != 1 ||
      last->sequence != lease.stored.durable() + 1 || last->close.has_value() ||
      end.chunk_count() != static_cast<uint64_t>(last->sequence + 1) ||
      end.event_count() != lease.stored.events() + last->events) {
    return false;
  }
  const bool kept_batches =
      lease.keep_batches && lease.batches.size() == end.chunk_count();
  const std::string closed_row = SpanStateRow(
      lease, clickhouse::kSpanClosed, static_cast<int64_t>(end.chunk_count()),
      end.event_count(), NowMillis());
  // Before the CLOSED row can be stored: its build's generation and its count
  // in pending_builds_ (design note 4). PrepareCloseBuild takes the store's
  // mu_, never held when taking a lease's.
  const CloseBuild build = PrepareCloseBuild(lease, kept_batches);
  const size_t shard = (lease.home + last->tried) % shards_.size();
  if (!writers_[shard]->AddWhileQueued(last->rows.get(),
                                       [&](clickhouse::ChunkRows& rows) {
                                         rows.closed_spans = closed_row;
                                       })) {
    if (build.kept) BuildEnded(lease.run);
    return false;  // taken into a commit already: closed once it is done
  }
  // Still under lease.mu, so the chunk's answer (ChunkWritten) sees the close.
  last->close = InFlightChunk::AttachedClose{std::move(done), build};
  ++closed_with_last_chunk_;
  return true;
}

void ClickHouseStore::HoldWritesForTesting(bool hold) {
  for (const auto& writer : writers_) writer->HoldForTesting(hold);
}

ClickHouseStore::CloseBuild ClickHouseStore::PrepareCloseBuild(
    Lease& lease, bool kept_batches) {
  // Built from the batches only when this replica opened no other span of the
  // worker (--parallel uploads two files of one worker at once, and neither
  // OpenSpan saw the other's row): a profile of one span would otherwise be
  // all that is built, and no build would cover both.
  CloseBuild build;
  build.generation = NewGeneration();  // before the CLOSED row: a ledger build
  // that sees this span closed starts later, and outranks it
  if (kept_batches) {
    absl::MutexLock lock(&mu_);
    auto opens = worker_opens_.find({lease.run, lease.worker});
    build.kept = opens != worker_opens_.end() && opens->second == 1;
    // Counted before the CLOSED row is stored: a digest that finds the run
    // COMPLETE then waits for this build.
    if (build.kept) ++pending_builds_[lease.run];
  }
  return build;
}

void ClickHouseStore::CloseStored(Lease& lease, const CloseBuild& build,
                                  const absl::Status& stored) {
  if (!stored.ok()) {
    if (build.kept) BuildEnded(lease.run);
    return;
  }
  if (!build.kept) {
    ScheduleProfileBuild(lease.run, lease.worker, lease.home);
    return;
  }
  ClosedSpanBatches closed{.run = lease.run,
                           .worker = lease.worker,
                           .span = lease.span,
                           .home = lease.home,
                           .info = lease.header.worker(),
                           .generation = build.generation};
  {
    absl::MutexLock lock(&lease.mu);
    closed.batches = std::move(lease.batches);
    closed.bytes = std::exchange(lease.batches_bytes, 0);
    lease.batches = {};
    lease.keep_batches = false;
  }
  ScheduleBuildFromBatches(std::move(closed));
}

void ClickHouseStore::ScheduleProfileBuild(const std::string& run,
                                           const std::string& worker,
                                           size_t shard) {
  {
    absl::MutexLock lock(&mu_);
    // A build still queued reads the worker's closed spans when it starts, this
    // one included.
    if (builds_queued_.try_emplace({run, worker}, shard).second)
      ++pending_builds_[run];
    if (builder_running_) return;
    builder_running_ = true;
  }
  builds_.Post([this] { BuildQueuedProfiles(); });
}

}  // namespace profdiff::aggregator
