// The ClickHouse store's `events` table, filled beside the acknowledged path
// (events_mirror.h), and the repair of rows a replica held when it died.
#include <algorithm>

#include "aggregator/clickhouse/clickhouse_store.h"
#include "aggregator/clickhouse/event_rows.h"
#include "aggregator/clickhouse/internal/store_parts.h"
#include "aggregator/clickhouse/row_binary.h"
#include "aggregator/store/batch_codec.h"
#include "base/log.h"
#include "base/status_annotate.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {

using clickhouse::RowBinaryReader;
using namespace clickhouse_parts;  // NOLINT(google-build-using-namespace): this
                                   // file is part of the store

namespace {

constexpr char kWithoutMarker[] =
    "(run, worker, span, seq, attempt) NOT IN (SELECT run, worker, span, seq, "
    "attempt FROM events_stored_local)";
// Ledger rows repaired per query: their batches come back whole.
constexpr int kRepairChunksPerQuery = 256;

}  // namespace

absl::Status ClickHouseStore::EventsTableIsOn() const {
  if (fills_events_table()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      "clickhouse: this store fills no events table "
      "(--clickhouse-events-table=true fills it)");
}

absl::Status ClickHouseStore::FlushEventRows() const {
  absl::Status first;
  for (const auto& mirror : event_mirrors_) first.Update(mirror->Flush());
  return first;
}

void ClickHouseStore::HoldEventFlushesForTesting(bool hold) {
  for (const auto& mirror : event_mirrors_) mirror->HoldForTesting(hold);
}

void ClickHouseStore::DropHeldEventRowsForTesting() {
  for (const auto& mirror : event_mirrors_) mirror->DropForTesting();
}

absl::StatusOr<int64_t> ClickHouseStore::RepairEventRows(
    absl::Duration grace) const {
  PD_RETURN_IF_ERROR(EventsTableIsOn());
  const int64_t cutoff = NowMillis() - absl::ToInt64Milliseconds(grace);
  int64_t repaired = 0;
  BatchDecompressor decompressor;
  for (const auto& shard : shards_) {
    for (;;) {
      PD_ASSIGN_OR_RETURN(
          const std::string rows,
          shard->Query(
              base::StrCat(
                  // has_rows: a replica that died between a flush's rows
                  // and its markers (or while the server finished its
                  // insert) left the rows; they get their marker only. Read
                  // for the runs with chunks to repair, by the primary key.
                  "SELECT run, worker, span, seq, attempt, batch_bytes, "
                  "batch_zstd, (run, worker, span, seq, attempt) IN (SELECT "
                  "run, worker, span, seq, attempt FROM events_local WHERE "
                  "run IN (SELECT run FROM chunks_local WHERE stored_ms <= ",
                  cutoff, " AND ", kWithoutMarker,
                  ") AND idx = 0) AS has_rows FROM chunks_local WHERE "
                  "stored_ms <= ",
                  cutoff, " AND ", kWithoutMarker, " LIMIT ",
                  kRepairChunksPerQuery, " FORMAT RowBinary"),
              kWholeAnswer));
      std::string events, markers;
      int chunks = 0;
      RowBinaryReader reader(rows);
      while (!reader.done() && reader.ok()) {
        clickhouse::ChunkKey key;
        key.run = reader.String();
        key.worker = reader.String();
        key.span = reader.String();
        key.seq = reader.Number<int64_t>();
        key.attempt = reader.Number<uint64_t>();
        const uint64_t raw_bytes = reader.Number<uint64_t>();
        const std::string_view compressed = reader.String();
        const bool has_rows = reader.Number<uint8_t>() != 0;
        if (!reader.ok()) break;
        clickhouse::AppendEventMarker(key, markers);
        ++chunks;
        if (has_rows) continue;
        const std::string where = base::StrCat(
            "clickhouse ", shard->address(), ": ledger row ", key.run, "/",
            key.worker, "/", key.span, " seq ", key.seq);
        const absl::StatusOr<std::string_view> raw =
            decompressor.Decompress(compressed, raw_bytes);
        if (!raw.ok()) return base::Annotate(raw.status(), where);
        v1::EventBatch batch;
        if (!batch.ParseFromArray(raw->data(), static_cast<int>(raw->size()))) {
          return absl::DataLossError(
              base::StrCat(where, ": its batch does not parse"));
        }
        std::vector<uint64_t> ids;
        ids.reserve(static_cast<size_t>(batch.strings_size()));
        for (const std::string& name : batch.strings())
          ids.push_back(NameId(name));
        clickhouse::AppendEventBlock(key, batch, ids, events);
      }
      PD_RETURN_IF_ERROR(reader.status("the ledger rows to repair"));
      if (chunks == 0) break;
      // The rows, then their markers, as the mirror stores them.
      if (!events.empty()) {
        PD_RETURN_IF_ERROR(
            shard->Insert(clickhouse::kInsertEventBlocks, events));
      }
      PD_RETURN_IF_ERROR(shard->Insert(
          "INSERT INTO events_stored_local FORMAT RowBinary", markers));
      repaired += chunks;
      if (chunks < kRepairChunksPerQuery) break;
    }
  }
  return repaired;
}

void ClickHouseStore::RepairEventRowsLoop() {
  const absl::Duration every = options_.events_repair_interval;
  for (absl::Duration wait = std::min(every, absl::Minutes(1));; wait = every) {
    {
      absl::MutexLock lock(&mu_);
      const auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_;
      };
      if (mu_.AwaitWithTimeout(absl::Condition(&stopping), wait)) return;
    }
    const absl::StatusOr<int64_t> repaired =
        RepairEventRows(options_.events_repair_grace);
    if (!repaired.ok()) {
      PD_LOG(WARNING, "events rows not repaired now (tried again in %s): %s",
             absl::FormatDuration(every), repaired.status().ToString());
    } else if (*repaired > 0) {
      PD_LOG(INFO, "events rows of %d stored chunks made from the ledger",
             *repaired);
    }
  }
}

}  // namespace profdiff::aggregator
