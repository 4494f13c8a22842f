// What the ClickHouse store's files share (clickhouse_store.cc: the write
// path; clickhouse_store_reads.cc: RunStore reads;
// clickhouse_store_profiles.cc: profiles and run tables): SQL text helpers,
// ids, and the rows and lease the store works with. Not part of the store's
// contract.
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_INTERNAL_STORE_PARTS_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_INTERNAL_STORE_PARTS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_set.h>
#include <absl/random/random.h>
#include <absl/synchronization/mutex.h>
#include <absl/time/clock.h>
#include <absl/time/time.h>

#include "aggregator/clickhouse/clickhouse_store.h"
#include "aggregator/clickhouse/durable_prefix.h"
#include "aggregator/clickhouse/http_client.h"
#include "aggregator/clickhouse/schema.h"
#include "aggregator/store/batch_codec.h"
#include "aggregator/store/rewritten_spans.h"
#include "base/stable_hash.h"
#include "base/str_cat.h"

namespace profdiff::aggregator {
namespace clickhouse_parts {

using clickhouse::Settings;

inline constexpr absl::Duration kQueryTimeout = absl::Seconds(120);
// Every read pins what makes an answer whole, whatever the server's default
// profile says: no shard skipped, no result cut at a row limit, the error (not
// a 200 and half the rows) when a query fails midway, and a row for an
// aggregate over nothing. max_query_size: a read may list every worker of a run
// of thousands (256 KiB by default). buffer_size: the answer wait_end_of_query
// holds is kept in the server's memory up to 16 MiB; by default (1 MiB, no
// more than the HTTP buffer) every answer went to a temp file, created and
// removed per query, and on ext4 without a journal each removal slows the
// file creations after it (agent/agent_state_journal.h).
inline constexpr char kBufferAnswers[] = "buffer_size=16777216";
inline const Settings kWholeAnswer = {
    "skip_unavailable_shards=0",
    "wait_end_of_query=1",
    kBufferAnswers,
    "empty_result_for_aggregation_by_empty_set=0",
    "result_overflow_mode=throw",
    "max_result_rows=0",
    "max_query_size=67108864"};
// Write-path lookups may skip a shard that is down: they can only make an agent
// resend chunks.
inline const Settings kSkipUnreachableShards = {
    "skip_unavailable_shards=1",
    "wait_end_of_query=1",
    kBufferAnswers,
    "empty_result_for_aggregation_by_empty_set=0",
    "result_overflow_mode=throw",
    "max_result_rows=0"};

// A SQL string literal. Ids are already [A-Za-z0-9._-]; user text (a filter) is
// escaped.
inline std::string Quote(std::string_view text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\\' || c == '\'') quoted.push_back('\\');
    quoted.push_back(c);
  }
  quoted.push_back('\'');
  return quoted;
}

// Any container of strings (a vector, a set).
template <typename Strings>
std::string QuotedList(const Strings& values) {
  std::string list;
  for (const std::string& value : values)
    base::StrAppend(&list, list.empty() ? "" : ", ", Quote(value));
  return list;
}

// Stable across processes and replicas (std::hash and absl::Hash are not).
inline uint64_t NameId(std::string_view name) {
  return base::StableHash64(name);
}

inline int64_t NowMillis() { return absl::ToUnixMillis(absl::Now()); }

// Profile generations: nanoseconds since the epoch, so builds on different
// replicas order by when they started.
inline uint64_t NewGeneration() {
  return static_cast<uint64_t>(absl::ToUnixNanos(absl::Now()));
}

// A one-value TSV answer without its line end.
inline std::string_view StripNewline(std::string_view answer) {
  while (!answer.empty() && (answer.back() == '\n' || answer.back() == '\r'))
    answer.remove_suffix(1);
  return answer;
}

}  // namespace clickhouse_parts

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

struct ClickHouseStore::WorkerRows {
  std::string worker;
  std::vector<const SpanRow*> spans;
  const SpanRow* latest = nullptr;
  // The closed spans a newer version of their trace file replaces
  // (aggregator/store/rewritten_spans.h).
  std::vector<ReplacedSpan> replaced;
  std::vector<std::string> closed_ids;  // the closed spans counted

  const v1::WorkerInfo& info() const { return latest->header.worker(); }
  // Whether `span` is in the worker's profile, digest and export.
  bool Counts(const SpanRow& span) const {
    return span.closed() && !IsReplaced(replaced, span.span);
  }
};

// The state of one upload stream: where its span's rows go and what the ledger
// holds of it.
class ClickHouseStore::Lease final : public Store::SpanLease {
 public:
  Lease(ClickHouseStore* store, std::string key)
      : store_(store), key_(std::move(key)) {}
  ~Lease() override {
    store_->ReleaseKeptBatchBytes(batches_bytes);
    store_->ReleaseLease(key_);
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
  clickhouse::DurablePrefix stored ABSL_GUARDED_BY(mu);
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
  // A new span's OPEN row, carried by its chunks' rows until one of them is
  // stored (spans before events and ledger in the group commit, so a span
  // with a chunk has a row) or, for a span with no chunk, replaced by its
  // CLOSED row.
  std::string open_row ABSL_GUARDED_BY(mu);
  // The chunk handed to a writer last, while it is in flight.
  InFlightChunk* newest_in_flight ABSL_GUARDED_BY(mu) = nullptr;
  // The span's batches (serialized, by sequence) as this stream handed them to
  // the writers, so its close builds the worker's profile without reading
  // them back (OpenSpan decides when; dropped when the store's budget for
  // them is spent). Entries past a failed chunk are cut when it is sent again.
  bool keep_batches ABSL_GUARDED_BY(mu) = false;
  std::vector<std::string> batches ABSL_GUARDED_BY(mu);
  size_t batches_bytes ABSL_GUARDED_BY(mu) = 0;  // reserved in the budget
};

// A closed span's batches on their way to a profile build (KeptBatches).
struct ClickHouseStore::ClosedSpanBatches {
  std::string run, worker, span;
  size_t home = 0;
  v1::WorkerInfo info;
  uint64_t generation = 0;  // taken before the span's CLOSED row was stored
  std::vector<std::string> batches;
  size_t bytes = 0;  // reserved in the budget until the build ends
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
  size_t tried = 0;             // shards tried before the current one
  std::vector<uint64_t> names;  // the name ids it carries (run_names.h)
  // The span's close, when its CLOSED row rides with this chunk's rows
  // (TryCloseWithLastChunk); under lease->mu.
  struct AttachedClose {
    Store::CloseDone done;
    CloseBuild build;
  };
  std::optional<AttachedClose> close;
};

}  // namespace profdiff::aggregator

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_INTERNAL_STORE_PARTS_H_
