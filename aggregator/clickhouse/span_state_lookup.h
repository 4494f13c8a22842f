// What opening a span needs from the spans table, looked up for every span
// that opens at once in one query. At a thousand ranks every rank opens a span,
// each lookup is a distributed query that runs on every shard, and those
// queries were what the servers did most after the inserts (one lookup per
// span was ~2.2 server queries per span). Lookups combine: while one query is
// out, the lookups that arrive wait and go together in the next, so a lone
// lookup waits for nothing and a burst costs a few queries.
#ifndef PROFDIFF_AGGREGATOR_CLICKHOUSE_SPAN_STATE_LOOKUP_H_
#define PROFDIFF_AGGREGATOR_CLICKHOUSE_SPAN_STATE_LOOKUP_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <absl/base/thread_annotations.h>
#include <absl/functional/any_invocable.h>
#include <absl/status/statusor.h>
#include <absl/synchronization/mutex.h>

namespace profdiff::aggregator::clickhouse {

struct SpanKey {
  std::string run;
  std::string worker;
  std::string span;
};

// The span's stored state (0: no row) and the rest as the spans table has them.
struct SpanState {
  uint8_t state = 0;
  int64_t chunk_count = 0;   // of the row with the highest state
  int64_t opened_ms = 0;     // the earliest row's
  std::string header;        // the earliest row's UploadHeader, serialized
  size_t home = 0;           // the worker's home shard
  uint64_t other_spans = 0;  // the worker's spans besides this one
};

class SpanStateLookup {
 public:
  // `read` runs a query through the Distributed tables (skipping a shard that
  // is down: design 3 of clickhouse_store.h) and returns its RowBinary answer;
  // it is called by one thread at a time.
  using Read =
      absl::AnyInvocable<absl::StatusOr<std::string>(const std::string& sql)>;
  SpanStateLookup(size_t shard_count, Read read, size_t max_batch = 64);
  SpanStateLookup(const SpanStateLookup&) = delete;
  SpanStateLookup& operator=(const SpanStateLookup&) = delete;

  // Blocks until the span's state is read, in a query with whatever other
  // lookups wait; a failed query fails each lookup in it.
  absl::StatusOr<SpanState> Lookup(const SpanKey& key) ABSL_LOCKS_EXCLUDED(mu_);

  // Queries sent so far (for tests and operators).
  int64_t queries() const ABSL_LOCKS_EXCLUDED(mu_);
  // Lookups waiting for the next query (for tests).
  size_t waiting() const ABSL_LOCKS_EXCLUDED(mu_);
  // While held, lookups wait instead of querying (for tests that need several
  // to go in one query).
  void HoldForTesting(bool hold) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Request {
    const SpanKey* key;
    std::optional<absl::StatusOr<SpanState>> answer;
  };
  // One query pair for `batch`: the spans rows of their workers, and their
  // home shards.
  // `answers` by the batch's order.
  absl::Status LookUp(const std::vector<Request*>& batch,
                      std::vector<absl::StatusOr<SpanState>>& answers);

  const size_t shard_count_;
  const size_t max_batch_;
  Read read_;
  mutable absl::Mutex mu_;
  std::deque<Request*> waiting_ ABSL_GUARDED_BY(mu_);
  bool querying_ ABSL_GUARDED_BY(mu_) = false;
  bool held_ ABSL_GUARDED_BY(mu_) = false;
  int64_t queries_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace profdiff::aggregator::clickhouse

#endif  // PROFDIFF_AGGREGATOR_CLICKHOUSE_SPAN_STATE_LOOKUP_H_
