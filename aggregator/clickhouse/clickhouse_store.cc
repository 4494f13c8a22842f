#include "aggregator/clickhouse/clickhouse_store.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <absl/container/flat_hash_set.h>
#include <absl/random/random.h>
#include <absl/strings/str_split.h>
#include <absl/synchronization/notification.h>

#include "aggregator/clickhouse/clickhouse_url.h"
#include "aggregator/clickhouse/row_binary.h"
#include "aggregator/clickhouse/schema.h"
#include "aggregator/store/batch_codec.h"
#include "aggregator/store/read_requests.h"
#include "aggregator/store/run_state.h"
#include "aggregator/store/run_tables.h"
#include "aggregator/store/upload_rules.h"
#include "aggregator/store/worker_selector.h"
#include "base/log.h"
#include "base/parse_int.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"
#include "trace/chrome_trace_writer.h"

namespace profdiff::aggregator {

using clickhouse::HttpClient;
using clickhouse::RowBinaryReader;
using clickhouse::RowBinaryWriter;
using clickhouse::Settings;

namespace {

constexpr absl::Duration kQueryTimeout = absl::Seconds(120);
// Every read pins what makes an answer whole, whatever the server's default
// profile says: no shard skipped, no result cut at a row limit, the error (not
// a 200 and half the rows) when a query fails midway, and a row for an
// aggregate over nothing. max_query_size: a read may list every worker of a run
// of thousands (256 KiB by default).
const Settings kWholeAnswer = {"skip_unavailable_shards=0",
                               "wait_end_of_query=1",
                               "empty_result_for_aggregation_by_empty_set=0",
                               "result_overflow_mode=throw",
                               "max_result_rows=0",
                               "max_query_size=67108864"};
// Write-path lookups may skip a shard that is down: they can only make an agent
// resend chunks.
const Settings kSkipUnreachableShards = {
    "skip_unavailable_shards=1", "wait_end_of_query=1",
    "empty_result_for_aggregation_by_empty_set=0", "result_overflow_mode=throw",
    "max_result_rows=0"};

// A SQL string literal. Ids are already [A-Za-z0-9._-]; user text (a filter) is
// escaped.
std::string Quote(std::string_view text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\\' || c == '\'') quoted.push_back('\\');
    quoted.push_back(c);
  }
  quoted.push_back('\'');
  return quoted;
}

std::string QuotedList(const std::vector<std::string>& values) {
  std::string list;
  for (const std::string& value : values)
    base::StrAppend(&list, list.empty() ? "" : ", ", Quote(value));
  return list;
}

// Stable across processes and replicas (std::hash and absl::Hash are not).
uint64_t NameId(std::string_view name) {
  uint64_t hash = 14695981039346656037ull;
  for (char c : name) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

int64_t NowMillis() { return absl::ToUnixMillis(absl::Now()); }

// Profile generations: nanoseconds since the epoch, so builds on different
// replicas order by when they started.
uint64_t NewGeneration() {
  return static_cast<uint64_t>(absl::ToUnixNanos(absl::Now()));
}

// A one-value TSV answer without its line end.
std::string_view StripNewline(std::string_view answer) {
  while (!answer.empty() && (answer.back() == '\n' || answer.back() == '\r'))
    answer.remove_suffix(1);
  return answer;
}

}  // namespace

// One span as the spans table has it (its latest state).
struct ClickHouseStore::SpanRow {
  std::string run;
  std::string worker;
  std::string span;
  v1::UploadHeader header;
  uint8_t state = 0;
  int64_t chunk_count = 0;
  int64_t event_count = 0;
  int64_t opened_ms = 0;
  int64_t closed_ms = 0;

  bool closed() const { return state == clickhouse::kSpanClosed; }
};

// What the ledger holds of one span (each chunk once).
struct ClickHouseStore::ChunkTotals {
  int64_t chunks = 0;
  int64_t events = 0;
  int64_t bytes = 0;
  int64_t last_ms = 0;
};

struct ClickHouseStore::RunRows {
  struct Profile {
    std::vector<std::string> spans;
    int32_t step_count = 0;
  };
  std::vector<SpanRow> spans;  // by run, worker, span
  std::map<std::tuple<std::string, std::string, std::string>, ChunkTotals>
      chunks;
  std::map<std::pair<std::string, std::string>, Profile> profiles;
};

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

// The state of one upload stream: where its span's rows go and what the ledger
// holds of it.
class ClickHouseStore::Lease final : public Store::SpanLease {
 public:
  Lease(ClickHouseStore* store, std::string key)
      : store_(store), key_(std::move(key)) {}
  ~Lease() override { store_->ReleaseLease(key_); }

  // A chunk stored. It counts once the chunks before it are stored too: a chunk
  // can be stored past a gap (an earlier one retried on another shard), and a
  // chunk stored twice counts once.
  void Stored(int64_t sequence, int events_stored, uint64_t bytes_stored)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (sequence <= durable) return;
    stored_ahead[sequence] = {events_stored, bytes_stored};
    while (!stored_ahead.empty() &&
           stored_ahead.begin()->first == durable + 1) {
      durable = stored_ahead.begin()->first;
      events += stored_ahead.begin()->second.first;
      bytes += stored_ahead.begin()->second.second;
      stored_ahead.erase(stored_ahead.begin());
    }
  }

  ClickHouseStore* store_;
  std::string key_;
  // Set by OpenSpan.
  v1::UploadHeader header;
  std::string run, worker, span;
  size_t home = 0;
  int64_t opened_ms = 0;
  // Used by the thread starting an append (one at a time).
  std::string batch_bytes, batch_zstd;
  BatchCompressor compressor;
  absl::BitGen bits;
  // What is stored and in flight; chunks finish on the shard writers' threads.
  absl::Mutex mu;
  int64_t durable ABSL_GUARDED_BY(mu) = -1;  // every chunk up to here is stored
  std::map<int64_t, std::pair<int, uint64_t>> stored_ahead
      ABSL_GUARDED_BY(mu);                 // seq -> (events, bytes)
  int64_t events ABSL_GUARDED_BY(mu) = 0;  // of the chunks up to `durable`
  uint64_t bytes ABSL_GUARDED_BY(mu) = 0;
  int64_t accepted ABSL_GUARDED_BY(mu) =
      -1;  // the last chunk handed to a writer
  uint64_t accepted_bytes ABSL_GUARDED_BY(mu) = 0;
  int in_flight ABSL_GUARDED_BY(mu) = 0;
  bool failed ABSL_GUARDED_BY(mu) =
      false;  // a chunk failed while others were in flight
  // Name ids in chunks handed to writers: a name goes with the first chunk
  // using it. A failed chunk may have carried some, so a failure clears the
  // set.
  absl::flat_hash_set<uint64_t> names_sent ABSL_GUARDED_BY(mu);
};

// One chunk on its way to a shard: what retrying it elsewhere and reporting it
// need.
struct ClickHouseStore::InFlightChunk {
  Lease* lease;
  int64_t sequence;
  int events;
  uint64_t raw_bytes;
  std::shared_ptr<clickhouse::ChunkRows> rows;
  Store::AppendDone done;
  size_t tried = 0;  // shards tried before the current one
};

namespace {

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
    : options_(std::move(options)), shards_(std::move(shards)) {
  for (const auto& shard : shards_)
    writers_.push_back(std::make_unique<clickhouse::ShardWriter>(shard.get()));
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

}  // namespace

absl::StatusOr<std::unique_ptr<ClickHouseStore>> ClickHouseStore::Open(
    const StoreOptions& options) {
  PD_ASSIGN_OR_RETURN(const clickhouse::ClickHouseUrl url,
                      clickhouse::ParseClickHouseUrl(options.clickhouse_url));
  std::vector<std::unique_ptr<HttpClient>> shards;
  for (const std::string& address : url.shards) {
    HttpClient bootstrap(address, "", kQueryTimeout);
    PD_RETURN_IF_ERROR(
        bootstrap
            .Query(base::StrCat("CREATE DATABASE IF NOT EXISTS ", url.database))
            .status());
    for (const std::string& statement : clickhouse::SchemaStatements(
             url.database, options.clickhouse_cluster)) {
      PD_RETURN_IF_ERROR(base::Annotate(bootstrap.Query(statement).status(),
                                        "creating the schema"));
    }
    PD_RETURN_IF_ERROR(CheckColumns(bootstrap, address, url.database));
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
  return std::make_unique<ClickHouseStore>(Passkey{}, options,
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

absl::Status ClickHouseStore::CheckWorldSize(
    const v1::UploadHeader& header) const {
  const v1::WorkerInfo& worker = header.worker();
  if (!worker.distributed_info_present()) return absl::OkStatus();
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
  return agreement.Check(header.run(), worker);
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
  }
  // The span's state, then what the ledger holds of it: the contiguous chunks
  // from 0.
  PD_ASSIGN_OR_RETURN(
      const std::string state_rows,
      Read(base::StrCat(
               "SELECT max(state), argMax(chunk_count, state), min(opened_ms), "
               "argMin(header, opened_ms) FROM spans WHERE ",
               where, " FORMAT RowBinary"),
           /*skip_unreachable=*/true));
  RowBinaryReader state(state_rows);
  const uint8_t stored_state = state.Number<uint8_t>();
  const int64_t closed_chunks = state.Number<int64_t>();
  const int64_t opened_ms = state.Number<int64_t>();
  const std::string_view stored_header_bytes = state.String();
  PD_RETURN_IF_ERROR(state.status("the span state lookup"));
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

  PD_ASSIGN_OR_RETURN(
      const std::string chunk_rows,
      Read(base::StrCat("SELECT seq, argMax(event_count, attempt), "
                        "argMax(batch_bytes, attempt) "
                        "FROM chunks WHERE ",
                        where, " GROUP BY seq ORDER BY seq FORMAT RowBinary"),
           /*skip_unreachable=*/true));
  RowBinaryReader chunks(chunk_rows);
  int64_t durable = -1;
  {
    absl::MutexLock lock(&lease->mu);
    while (!chunks.done()) {
      const int64_t seq = chunks.Number<int64_t>();
      const uint32_t events = chunks.Number<uint32_t>();
      const uint64_t bytes = chunks.Number<uint64_t>();
      if (!chunks.ok() || seq != lease->durable + 1) break;
      lease->durable = seq;
      lease->events += events;
      lease->bytes += bytes;
    }
    lease->accepted = durable = lease->durable;
    lease->accepted_bytes = lease->bytes;
  }
  PD_RETURN_IF_ERROR(chunks.status("the ledger lookup"));

  lease->header = header;
  lease->run = header.run();
  lease->worker = worker;
  lease->span = header.span();
  PD_ASSIGN_OR_RETURN(lease->home, HomeShard(header.run(), worker));
  lease->opened_ms =
      stored_state == clickhouse::kSpanOpen ? opened_ms : NowMillis();
  if (stored_state != clickhouse::kSpanOpen) {
    PD_RETURN_IF_ERROR(
        InsertFailingOver(lease->home, "spans",
                          SpanStateRow(*lease, clickhouse::kSpanOpen, 0, 0, 0))
            .status());
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
      durable = lease.durable;
    }
    return done(durable);
  }
  InFlightChunk& in_flight = **prepared;
  in_flight.done = std::move(done);
  const size_t home = lease.home;
  auto rows = in_flight.rows;
  writers_[home]->Submit(std::move(rows), [this, owned = *std::move(prepared)](
                                              absl::Status status) mutable {
    ChunkWritten(std::move(owned), std::move(status));
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
    if (sequence <= lease.durable) return nullptr;
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
  std::vector<uint64_t>
      fresh;  // names this stream has not sent yet (all again after a failure)
  {
    absl::MutexLock lock(&lease.mu);
    for (int i = 0; i < batch.strings_size(); ++i) {
      const uint64_t id = NameId(batch.strings(i));
      ids[static_cast<size_t>(i)] = id;
      if (lease.names_sent.contains(id)) continue;
      fresh.push_back(id);
      names.String(lease.run);
      names.String(lease.worker);
      names.Number<uint64_t>(id);
      names.String(batch.strings(i));
    }
  }
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
  RowBinaryWriter event_rows(rows->events);
  int64_t start = 0;
  for (int i = 0; i < events; ++i) {
    start += batch.start_delta_ns(i);
    key(event_rows);
    event_rows.Number<uint64_t>(attempt);
    event_rows.Number<uint32_t>(static_cast<uint32_t>(i));
    event_rows.Number<int8_t>(static_cast<int8_t>(batch.kind(i)));
    event_rows.Number<uint64_t>(ids[batch.name(i)]);
    event_rows.Number<int64_t>(start);
    event_rows.Number<int64_t>(batch.duration_ns(i));
    event_rows.Number<int64_t>(batch.device(i));
    event_rows.Number<int64_t>(batch.thread(i));
    event_rows.Number<int64_t>(batch.correlation(i));
    event_rows.Number<int64_t>(batch.external_id(i));
    event_rows.Number<int64_t>(batch.sequence_number(i));
    event_rows.Number<uint64_t>(ids[batch.input_shapes(i)]);
  }
  RowBinaryWriter ledger(rows->ledger);
  key(ledger);
  rows->attempt_offset = rows->ledger.size();
  ledger.Number<uint64_t>(attempt);
  ledger.Number<uint32_t>(static_cast<uint32_t>(events));
  ledger.Number<uint64_t>(lease.batch_bytes.size());
  ledger.Number<int64_t>(NowMillis());
  ledger.String(lease.batch_zstd);
  rows->event_row_bytes =
      events == 0 ? 0 : rows->events.size() / static_cast<size_t>(events);

  absl::MutexLock lock(&lease.mu);
  if (lease.failed || sequence != lease.accepted + 1) {
    // An earlier chunk failed while this one was being encoded.
    return absl::UnavailableError(base::StrCat(
        "chunk ", sequence, ": an earlier chunk of the span failed; retry"));
  }
  if (lease.accepted_bytes + lease.batch_bytes.size() >
      options_.max_span_bytes) {
    return absl::ResourceExhaustedError(
        base::StrCat("chunk ", sequence, ": span would exceed max_span_bytes (",
                     options_.max_span_bytes, "); ", lease.accepted_bytes,
                     " bytes stored or being stored"));
  }
  lease.accepted = sequence;
  lease.accepted_bytes += lease.batch_bytes.size();
  lease.names_sent.insert(fresh.begin(), fresh.end());
  ++lease.in_flight;
  return std::make_unique<InFlightChunk>(
      InFlightChunk{&lease, sequence, events, lease.batch_bytes.size(),
                    std::move(rows), nullptr});
}

void ClickHouseStore::ChunkWritten(std::unique_ptr<InFlightChunk> chunk,
                                   absl::Status status) {
  Lease& lease = *chunk->lease;
  const size_t shard = (lease.home + chunk->tried) % shards_.size();
  if (absl::IsUnavailable(status) && chunk->tried + 1 < shards_.size()) {
    // The whole chunk moves on to the next shard, under a fresh attempt.
    ++chunk->tried;
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
        [this, owned = std::move(chunk)](absl::Status retried) mutable {
          ChunkWritten(std::move(owned), std::move(retried));
        },
        /*wait_for_room=*/false);
    return;
  }
  absl::StatusOr<int64_t> answer = chunk->sequence;
  {
    absl::MutexLock lock(&lease.mu);
    --lease.in_flight;
    if (status.ok()) {
      lease.Stored(chunk->sequence, chunk->events, chunk->raw_bytes);
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
      lease.accepted = lease.durable;
      lease.accepted_bytes = lease.bytes;
      lease.stored_ahead
          .clear();  // they will come again, after the one that failed
    }
  }
  if (status.ok() && shard != lease.home) {
    PD_LOG(WARNING,
           "chunk %d of %s/%s/%s stored on shard %d: its home shard %d did not "
           "answer",
           chunk->sequence, lease.run, lease.worker, lease.span, shard,
           lease.home);
  }
  std::move(chunk->done)(std::move(answer));
}

absl::Status ClickHouseStore::CloseSpan(Store::SpanLease& any_lease,
                                        const v1::SpanEnd& end) {
  Lease& lease = static_cast<Lease&>(any_lease);
  uint64_t chunks = 0;
  int64_t events = 0;
  {
    absl::MutexLock lock(&lease.mu);
    if (lease.in_flight > 0) {
      return absl::FailedPreconditionError(
          base::StrCat("span end while ", lease.in_flight,
                       " chunks are still being stored"));
    }
    chunks = static_cast<uint64_t>(lease.durable + 1);
    events = lease.events;
  }
  if (end.chunk_count() != chunks || end.event_count() != events) {
    return absl::InvalidArgumentError(base::StrCat(
        "span end says ", end.chunk_count(), " chunks and ", end.event_count(),
        " events, but ", chunks, " chunks and ", events, " events are stored"));
  }
  PD_RETURN_IF_ERROR(
      InsertFailingOver(lease.home, "spans",
                        SpanStateRow(lease, clickhouse::kSpanClosed,
                                     static_cast<int64_t>(end.chunk_count()),
                                     end.event_count(), NowMillis()))
          .status());
  ScheduleProfileBuild(lease.run, lease.worker, lease.home);
  return absl::OkStatus();
}

void ClickHouseStore::ScheduleProfileBuild(const std::string& run,
                                           const std::string& worker,
                                           size_t shard) {
  {
    absl::MutexLock lock(&mu_);
    // A build still queued reads the worker's closed spans when it starts, this
    // one included.
    builds_queued_.try_emplace({run, worker}, shard);
    if (builder_running_) return;
    builder_running_ = true;
  }
  builds_.Post([this] { BuildQueuedProfiles(); });
}

void ClickHouseStore::BuildQueuedProfiles() {
  // Profiles stored per insert, at most: a pass holds their rows until it
  // inserts them.
  constexpr size_t kProfilesPerPass = 64;
  for (;;) {
    std::vector<std::pair<std::pair<std::string, std::string>, size_t>> pass;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) builds_queued_.clear();
      while (!builds_queued_.empty() && pass.size() < kProfilesPerPass) {
        pass.emplace_back(builds_queued_.begin()->first,
                          builds_queued_.begin()->second);
        builds_queued_.erase(builds_queued_.begin());
      }
      if (pass.empty()) {
        builder_running_ = false;
        return;
      }
    }
    // Every profile built in a pass goes in one insert per table and home
    // shard: a part per table per closed span would cost the servers more than
    // the rows do.
    std::map<size_t, ProfileRows> by_shard;
    for (const auto& [key, shard] : pass) {
      {
        absl::MutexLock lock(&mu_);
        if (stopping_)
          return;  // the rest is dropped: reads build what is missing
      }
      ProfileRows& rows = by_shard[shard];
      const absl::Status built =
          StoreWorkerProfile(key.first, key.second, shard, &rows);
      if (!built.ok()) {
        // The span is closed all the same; the first read of the profile builds
        // it.
        PD_LOG(WARNING, "profile of %s/%s not built now: %s", key.first,
               key.second, built.ToString());
      }
    }
    for (const auto& [shard, rows] : by_shard) {
      if (rows.count == 0) continue;
      if (const absl::Status stored = InsertProfileRows(shard, rows);
          !stored.ok()) {
        PD_LOG(WARNING,
               "%d profiles for shard %d not stored now (reads build them): %s",
               rows.count, shard, stored.ToString());
      }
    }
  }
}

absl::StatusOr<ClickHouseStore::RunRows> ClickHouseStore::ReadRuns(
    const std::vector<std::string>& runs, const std::string& worker) const {
  RunRows rows;
  if (runs.empty()) return rows;
  std::string in = base::StrCat("run IN (", QuotedList(runs), ")");
  if (!worker.empty()) base::StrAppend(&in, " AND worker = ", Quote(worker));
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
struct ClickHouseStore::WorkerRows {
  std::string worker;
  std::vector<const SpanRow*> spans;
  const SpanRow* latest = nullptr;
  std::vector<std::string> closed_ids;

  const v1::WorkerInfo& info() const { return latest->header.worker(); }
};

std::vector<ClickHouseStore::WorkerRows> ClickHouseStore::WorkersOf(
    const RunRows& rows, const std::string& run) {
  std::vector<WorkerRows> workers;
  for (const SpanRow& span : rows.spans) {
    if (span.run != run) continue;
    if (workers.empty() || workers.back().worker != span.worker)
      workers.push_back({span.worker, {}, &span, {}});
    WorkerRows& worker = workers.back();
    worker.spans.push_back(&span);
    if (span.opened_ms >= worker.latest->opened_ms) worker.latest = &span;
    if (span.closed()) worker.closed_ids.push_back(span.span);
  }
  return workers;
}

v1::StoredRun ClickHouseStore::Summarize(const std::string& run,
                                         const RunRows& rows, bool with_workers,
                                         absl::Time now) const {
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
    if (summary != nullptr) {
      *summary->mutable_worker() = worker.info();
      summary->mutable_worker()->set_run(run);
      // GetProfile serves every worker with a closed span (rebuilding a profile
      // that does not cover them all yet), as the local store does.
      auto profile = rows.profiles.find({run, worker.worker});
      summary->set_profile_ready(!worker.closed_ids.empty());
      summary->set_step_count(
          profile != rows.profiles.end() ? profile->second.step_count : 0);
    }
  }
  closed_ranks.AddWarnings(out);
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
    *response.add_runs() = Summarize(run, rows, /*with_workers=*/false, now);
  if (more) response.set_next_page_token(runs.back());
  return response;
}

absl::StatusOr<v1::StoredRun> ClickHouseStore::GetRun(
    const std::string& run) const {
  PD_ASSIGN_OR_RETURN(const RunRows rows, ReadRuns({run}));
  if (rows.spans.empty())
    return absl::NotFoundError(base::StrCat("run ", run, ": no such run"));
  return Summarize(run, rows, /*with_workers=*/true, absl::Now());
}

absl::StatusOr<std::vector<StoredSpan>> ClickHouseStore::ReadSpans(
    const std::string& run, const std::vector<SpanRow>& spans) const {
  std::vector<std::string> ids;
  for (const SpanRow& span : spans) ids.push_back(span.span);
  const std::string& worker = spans.front().worker;
  // Every stored attempt, the latest chosen here rather than by argMax:
  // aggregating megabytes of batches would copy them all on the servers, and a
  // chunk stored twice is rare.
  PD_ASSIGN_OR_RETURN(
      std::string answer,
      Read(base::StrCat("SELECT span, seq, attempt, batch_bytes, batch_zstd "
                        "FROM chunks WHERE run = ",
                        Quote(run), " AND worker = ", Quote(worker),
                        " AND span IN (", QuotedList(ids),
                        ") FORMAT RowBinary")));
  // The answer is kept alive by the spans' readers, which visit views into it.
  auto shared = std::make_shared<const std::string>(std::move(answer));
  std::map<std::string, std::map<int64_t, StoredChunk>> batches;
  RowBinaryReader reader(*shared);
  while (!reader.done() && reader.ok()) {
    const std::string_view span = reader.String();
    const int64_t seq = reader.Number<int64_t>();
    const uint64_t attempt = reader.Number<uint64_t>();
    const uint64_t raw_bytes = reader.Number<uint64_t>();
    const std::string_view compressed = reader.String();
    const StoredChunk chunk{attempt, raw_bytes, compressed};
    auto [it, first] = batches[std::string(span)].try_emplace(seq, chunk);
    if (!first && attempt > it->second.attempt) it->second = chunk;
  }
  PD_RETURN_IF_ERROR(reader.status("the batches read"));
  std::vector<StoredSpan> out;
  for (const SpanRow& span : spans) {
    std::vector<StoredChunk> chunks;
    for (const auto& [seq, chunk] : batches[span.span]) {
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

void ClickHouseStore::AppendProfileRows(
    const std::string& run, const std::string& worker, uint64_t generation,
    const v1::WorkerProfile& profile, const std::vector<std::string>& span_ids,
    ProfileRows& out) {
  RowBinaryWriter op_rows(out.operators);
  for (const v1::OperatorStats& op : profile.operators()) {
    op_rows.String(run);
    op_rows.String(worker);
    op_rows.Number<uint64_t>(generation);
    op_rows.String(op.name());
    op_rows.String(op.input_shapes());
    op_rows.Number<int64_t>(op.calls());
    op_rows.Number<double>(op.host_self_us());
    op_rows.Number<double>(op.host_total_us());
    op_rows.Number<double>(op.device_self_us());
    op_rows.Number<double>(op.device_total_us());
    const v1::OperatorValues step =
        OperatorContribution(op, profile.steps_size(), /*per_step=*/true);
    op_rows.Number<double>(step.calls());
    op_rows.Number<double>(step.host_self_us());
    op_rows.Number<double>(step.host_total_us());
    op_rows.Number<double>(step.device_self_us());
    op_rows.Number<double>(step.device_total_us());
  }
  RowBinaryWriter kernel_rows(out.kernels);
  for (const v1::KernelStats& kernel : profile.kernels()) {
    kernel_rows.String(run);
    kernel_rows.String(worker);
    kernel_rows.Number<uint64_t>(generation);
    kernel_rows.String(kernel.name());
    kernel_rows.String(kernel.op_name());
    kernel_rows.Number<int64_t>(kernel.calls());
    kernel_rows.Number<double>(kernel.total_us());
    kernel_rows.Number<double>(kernel.max_us());
    kernel_rows.Number<double>(kernel.min_us());
    const v1::KernelValues step =
        KernelContribution(kernel, profile.steps_size(), /*per_step=*/true);
    kernel_rows.Number<double>(step.calls());
    kernel_rows.Number<double>(step.total_us());
  }
  ++out.count;
  RowBinaryWriter writer(out.profiles);
  writer.String(run);
  writer.String(worker);
  writer.Number<uint64_t>(generation);
  writer.StringArray(span_ids);
  writer.Number<int32_t>(profile.steps_size());
  writer.String(profile.SerializeAsString());
}

absl::Status ClickHouseStore::InsertProfileRows(size_t shard,
                                                const ProfileRows& rows) const {
  // The table rows first: a generation's rows count only once its profile row
  // exists.
  if (!rows.operators.empty()) {
    PD_ASSIGN_OR_RETURN(shard,
                        InsertFailingOver(shard, "operators", rows.operators));
  }
  if (!rows.kernels.empty()) {
    PD_ASSIGN_OR_RETURN(shard,
                        InsertFailingOver(shard, "kernels", rows.kernels));
  }
  if (rows.profiles.empty()) return absl::OkStatus();
  return InsertFailingOver(shard, "profiles", rows.profiles).status();
}

absl::Status ClickHouseStore::InsertProfile(
    const std::string& run, const std::string& worker, size_t shard,
    uint64_t generation, const v1::WorkerProfile& profile,
    const std::vector<std::string>& span_ids) const {
  ProfileRows rows;
  AppendProfileRows(run, worker, generation, profile, span_ids, rows);
  return InsertProfileRows(shard, rows);
}

absl::Status ClickHouseStore::StoreWorkerProfile(const std::string& run,
                                                 const std::string& worker,
                                                 size_t shard,
                                                 ProfileRows* batch) const {
  // Taken before reading the spans: of two builds racing, the one that saw more
  // spans started later and so wins (the local store numbers its builds the
  // same way).
  const uint64_t generation = NewGeneration();
  PD_ASSIGN_OR_RETURN(const RunRows rows,
                      ReadRuns({run}, worker));  // this worker's rows only
  std::vector<SpanRow> closed;
  std::vector<std::string> ids;
  for (const SpanRow& span : rows.spans) {
    if (span.closed()) {
      closed.push_back(span);
      ids.push_back(span.span);
    }
  }
  if (closed.empty()) return absl::OkStatus();
  // A read may have built it since this build was queued.
  if (auto stored = rows.profiles.find({run, worker});
      stored != rows.profiles.end() && stored->second.spans == ids) {
    return absl::OkStatus();
  }
  PD_ASSIGN_OR_RETURN(const std::vector<StoredSpan> spans,
                      ReadSpans(run, closed));
  PD_ASSIGN_OR_RETURN(const v1::WorkerProfile profile,
                      BuildProfile(run, spans, options_.batch_limits,
                                   analysis::ProfileOptions{}));
  if (batch == nullptr)
    return InsertProfile(run, worker, shard, generation, profile, ids);
  AppendProfileRows(run, worker, generation, profile, ids, *batch);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ClickHouseStore::Wanted>>
ClickHouseStore::SelectWorkers(const std::string& run,
                               const v1::WorkerSelector& selector) const {
  PD_ASSIGN_OR_RETURN(const RunRows rows, ReadRuns({run}));
  if (rows.spans.empty())
    return absl::NotFoundError(base::StrCat("run ", run, ": no such run"));
  std::vector<Wanted> wanted;
  size_t matched = 0;
  for (const WorkerRows& worker : WorkersOf(rows, run)) {
    if (!Selected(selector, worker.info())) continue;
    ++matched;
    if (worker.closed_ids.empty()) continue;
    Wanted entry{worker.info().rank(),
                 worker.info().worker_name(),
                 worker.worker,
                 {},
                 worker.closed_ids};
    for (const SpanRow* span : worker.spans) {
      if (span->closed()) entry.closed.push_back(*span);
    }
    auto profile = rows.profiles.find({run, worker.worker});
    entry.stored = profile != rows.profiles.end() &&
                   profile->second.spans == worker.closed_ids;
    wanted.push_back(std::move(entry));
  }
  if (matched == 0) {
    return absl::NotFoundError(base::StrCat("run ", run, ": no worker matches ",
                                            DescribeSelector(selector)));
  }
  if (wanted.empty()) {
    return absl::FailedPreconditionError(base::StrCat(
        "run ", run, ": no selected worker has a closed span yet"));
  }
  std::sort(wanted.begin(), wanted.end(), [](const Wanted& a, const Wanted& b) {
    return std::tie(a.rank, a.name) < std::tie(b.rank, b.name);
  });
  return wanted;
}

absl::StatusOr<v1::RunTables> ClickHouseStore::GetRunTables(
    const v1::GetRunTablesRequest& request) const {
  PD_ASSIGN_OR_RETURN(const std::vector<Wanted> wanted,
                      SelectWorkers(request.run(), request.workers()));
  v1::RunTables tables;
  tables.set_run(request.run());
  tables.set_workers(static_cast<int32_t>(wanted.size()));
  std::vector<std::string> workers;
  for (const Wanted& entry : wanted) {
    tables.add_ranks(entry.rank);
    workers.push_back(entry.worker);
    if (entry.stored) continue;
    // Not built yet (or not buildable while a shard was down): build it now, so
    // the aggregates below cover exactly the closed spans.
    PD_ASSIGN_OR_RETURN(const size_t home,
                        HomeShard(request.run(), entry.worker));
    PD_RETURN_IF_ERROR(StoreWorkerProfile(request.run(), entry.worker, home));
  }
  // Each row's contribution is stored per profile
  // (aggregator/store/run_tables.h), so the run value is a sum over the
  // workers' latest profiles divided by the number of workers: exactly the
  // workers counted above (one whose first span closes meanwhile stays out of
  // both). The inner GROUP BY keeps one copy of a row an insert retried after a
  // lost answer stored twice.
  const bool per_step = request.normalize() != v1::NORMALIZATION_TOTAL;
  const std::string of_workers =
      base::StrCat(" AND worker IN (", QuotedList(workers), ")");
  const std::string where =
      base::StrCat("WHERE run = ", Quote(request.run()), of_workers,
                   " AND (worker, generation) GLOBAL IN (SELECT worker, "
                   "max(generation) FROM profiles WHERE run = ",
                   Quote(request.run()), of_workers, " GROUP BY worker)");
  const auto query = [&](const char* table, const char* detail,
                         const std::vector<std::string>& summed,
                         const char* extra_inner, const char* extra_outer) {
    std::string inner, outer;
    for (size_t i = 0; i < summed.size(); ++i) {
      base::StrAppend(&inner, ", any(", per_step ? "step_" : "", summed[i],
                      ") AS v", i);
      base::StrAppend(&outer, ", toFloat64(sum(v", i, "))");
    }
    return base::StrCat(
        "SELECT name, ", detail, outer, extra_outer, " FROM (SELECT name, ",
        detail, inner, extra_inner, " FROM ", table, " ", where,
        " GROUP BY worker, generation, name, ", detail, ") GROUP BY name, ",
        detail, " ORDER BY name, ", detail, " FORMAT RowBinary");
  };
  PD_ASSIGN_OR_RETURN(const std::string operators,
                      Read(query("operators", "input_shapes",
                                 {"calls", "host_self_us", "host_total_us",
                                  "device_self_us", "device_total_us"},
                                 "", "")));
  PD_ASSIGN_OR_RETURN(const std::string kernels,
                      Read(query("kernels", "op_name", {"calls", "total_us"},
                                 ", any(min_us) AS lo, any(max_us) AS hi",
                                 ", min(lo), max(hi)")));
  const double n = static_cast<double>(wanted.size());
  RowBinaryReader op_reader(operators);
  while (!op_reader.done() && op_reader.ok()) {
    v1::OperatorRunRow& row = *tables.add_operators();
    row.set_name(std::string(op_reader.String()));
    row.set_input_shapes(std::string(op_reader.String()));
    v1::OperatorValues& values = *row.mutable_values();
    values.set_calls(op_reader.Number<double>() / n);
    values.set_host_self_us(op_reader.Number<double>() / n);
    values.set_host_total_us(op_reader.Number<double>() / n);
    values.set_device_self_us(op_reader.Number<double>() / n);
    values.set_device_total_us(op_reader.Number<double>() / n);
  }
  PD_RETURN_IF_ERROR(op_reader.status("the operator aggregates"));
  RowBinaryReader kernel_reader(kernels);
  while (!kernel_reader.done() && kernel_reader.ok()) {
    v1::KernelRunRow& row = *tables.add_kernels();
    row.set_name(std::string(kernel_reader.String()));
    row.set_op_name(std::string(kernel_reader.String()));
    v1::KernelValues& values = *row.mutable_values();
    values.set_calls(kernel_reader.Number<double>() / n);
    values.set_total_us(kernel_reader.Number<double>() / n);
    values.set_mean_us(values.calls() > 0 ? values.total_us() / values.calls()
                                          : 0);
    values.set_min_us(kernel_reader.Number<double>());
    values.set_max_us(kernel_reader.Number<double>());
  }
  PD_RETURN_IF_ERROR(kernel_reader.status("the kernel aggregates"));
  return tables;
}

absl::StatusOr<v1::RunProfile> ClickHouseStore::GetProfile(
    const v1::GetProfileRequest& request) const {
  const RequestedProfile requested = ProfileOptionsOf(request);
  const analysis::ProfileOptions& options = requested.options;
  const bool stored_grouping = requested.stored_options;
  const uint64_t generation =
      NewGeneration();  // for profiles rebuilt and cached below
  PD_ASSIGN_OR_RETURN(std::vector<Wanted> wanted,
                      SelectWorkers(request.run(), request.workers()));
  for (Wanted& entry : wanted) entry.stored = entry.stored && stored_grouping;
  std::vector<std::string> stored_workers;
  for (const Wanted& entry : wanted) {
    if (entry.stored) stored_workers.push_back(entry.worker);
  }
  std::map<std::string, v1::WorkerProfile> stored;
  if (!stored_workers.empty()) {
    PD_ASSIGN_OR_RETURN(
        const std::string answer,
        Read(base::StrCat("SELECT worker, argMax(profile, generation) FROM "
                          "profiles WHERE run = ",
                          Quote(request.run()), " AND worker IN (",
                          QuotedList(stored_workers),
                          ") GROUP BY worker FORMAT RowBinary")));
    RowBinaryReader reader(answer);
    while (!reader.done() && reader.ok()) {
      const std::string worker(reader.String());
      const std::string_view bytes = reader.String();
      if (!stored[worker].ParseFromArray(bytes.data(),
                                         static_cast<int>(bytes.size()))) {
        return absl::DataLossError(
            base::StrCat("run ", request.run(), " worker ", worker,
                         ": stored profile does not parse"));
      }
    }
    PD_RETURN_IF_ERROR(reader.status("the profiles read"));
  }
  v1::RunProfile profile;
  profile.set_run(request.run());
  for (Wanted& entry : wanted) {
    auto found = stored.find(entry.worker);
    if (entry.stored && found != stored.end()) {
      *profile.add_workers() = std::move(found->second);
      continue;
    }
    PD_ASSIGN_OR_RETURN(const std::vector<StoredSpan> spans,
                        ReadSpans(request.run(), entry.closed));
    PD_ASSIGN_OR_RETURN(
        *profile.add_workers(),
        BuildProfile(request.run(), spans, options_.batch_limits, options));
    if (stored_grouping) {
      // Cache it for the next read; a failure here only costs that read a
      // rebuild.
      absl::StatusOr<size_t> home = HomeShard(request.run(), entry.worker);
      if (home.ok()) {
        absl::Status cached = InsertProfile(
            request.run(), entry.worker, *home, generation,
            profile.workers(profile.workers_size() - 1), entry.closed_ids);
        if (!cached.ok())
          PD_LOG(WARNING, "profile of %s/%s not cached: %s", request.run(),
                 entry.worker, cached.message());
      }
    }
  }
  return profile;
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
    if (request.span().empty() ? span->closed() : span->span == request.span())
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
