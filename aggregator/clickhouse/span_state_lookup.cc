#include "aggregator/clickhouse/span_state_lookup.h"

#include <set>
#include <utility>

#include "aggregator/clickhouse/internal/store_parts.h"
#include "aggregator/clickhouse/row_binary.h"
#include "base/status_macros.h"
#include "base/str_cat.h"

namespace profdiff::aggregator::clickhouse {
namespace {

using clickhouse_parts::Quote;
using clickhouse_parts::QuotedList;

}  // namespace

SpanStateLookup::SpanStateLookup(size_t shard_count, Read read,
                                 size_t max_batch)
    : shard_count_(shard_count),
      max_batch_(max_batch == 0 ? 1 : max_batch),
      read_(std::move(read)) {}

int64_t SpanStateLookup::queries() const {
  absl::MutexLock lock(&mu_);
  return queries_;
}

size_t SpanStateLookup::waiting() const {
  absl::MutexLock lock(&mu_);
  return waiting_.size();
}

void SpanStateLookup::HoldForTesting(bool hold) {
  absl::MutexLock lock(&mu_);
  held_ = hold;
}

absl::StatusOr<SpanState> SpanStateLookup::Lookup(const SpanKey& key) {
  Request request{&key, std::nullopt};
  struct Wait {
    SpanStateLookup* self;
    Request* request;
  } wait{this, &request};
  absl::MutexLock lock(&mu_);
  waiting_.push_back(&request);
  for (;;) {
    mu_.Await(absl::Condition(
        +[](Wait* wait) ABSL_EXCLUSIVE_LOCKS_REQUIRED(wait->self->mu_) {
          return wait->request->answer.has_value() ||
                 (!wait->self->querying_ && !wait->self->held_);
        },
        &wait));
    if (request.answer.has_value()) return std::move(*request.answer);
    // No query is out: this thread sends the next, for what waits (its own
    // lookup among them unless max_batch_ others came first).
    querying_ = true;
    ++queries_;
    std::vector<Request*> batch;
    while (!waiting_.empty() && batch.size() < max_batch_) {
      batch.push_back(waiting_.front());
      waiting_.pop_front();
    }
    std::vector<absl::StatusOr<SpanState>> answers;
    mu_.Unlock();
    const absl::Status status = LookUp(batch, answers);
    mu_.Lock();
    for (size_t i = 0; i < batch.size(); ++i) {
      batch[i]->answer = status.ok() ? std::move(answers[i])
                                     : absl::StatusOr<SpanState>(status);
    }
    querying_ = false;
  }
}

absl::Status SpanStateLookup::LookUp(
    const std::vector<Request*>& batch,
    std::vector<absl::StatusOr<SpanState>>& answers) {
  // The spans rows of the batch's workers, a row per span. IN over each
  // column (a superset when a batch mixes runs, sorted out below) keeps to
  // the primary key, (run, worker, span), and to forms every server version
  // reads alike. The header only of spans looked up: it is the largest column.
  std::set<std::string> runs, workers, spans;
  std::string homes;
  for (const Request* request : batch) {
    runs.insert(request->key->run);
    workers.insert(request->key->worker);
    spans.insert(request->key->span);
    base::StrAppend(&homes, homes.empty() ? "" : ", ", "toUInt64(cityHash64(",
                    Quote(request->key->run), ", ", Quote(request->key->worker),
                    ") % ", shard_count_, ")");
  }
  PD_ASSIGN_OR_RETURN(
      const std::string rows,
      read_(base::StrCat(
          "SELECT run, worker, span, max(state), argMax(chunk_count, state), "
          "min(opened_ms), if(span IN (",
          QuotedList(spans),
          "), argMin(header, opened_ms), '') FROM spans WHERE run IN (",
          QuotedList(runs), ") AND worker IN (", QuotedList(workers),
          ") GROUP BY run, worker, span FORMAT RowBinary")));
  // The home shard as the Distributed tables shard rows (their key is
  // cityHash64(run, worker)); no table, so one server answers alone.
  PD_ASSIGN_OR_RETURN(
      const std::string home_rows,
      read_(base::StrCat("SELECT arrayJoin([", homes, "]) FORMAT RowBinary")));

  answers.assign(batch.size(), SpanState{});
  RowBinaryReader homes_reader(home_rows);
  for (absl::StatusOr<SpanState>& answer : answers) {
    const uint64_t home = homes_reader.Number<uint64_t>();
    if (homes_reader.ok() && home >= shard_count_) {
      return absl::DataLossError(base::StrCat("clickhouse: home shard answer ",
                                              home, " is not a shard index"));
    }
    answer->home = static_cast<size_t>(home);
  }
  PD_RETURN_IF_ERROR(homes_reader.status("the home shard lookup"));
  if (!homes_reader.done()) {
    return absl::DataLossError(
        "clickhouse: more home shards than spans looked up");
  }

  RowBinaryReader reader(rows);
  while (!reader.done() && reader.ok()) {
    const std::string_view run = reader.String();
    const std::string_view worker = reader.String();
    const std::string_view span = reader.String();
    const uint8_t state = reader.Number<uint8_t>();
    const int64_t chunk_count = reader.Number<int64_t>();
    const int64_t opened_ms = reader.Number<int64_t>();
    const std::string_view header = reader.String();
    if (!reader.ok()) break;
    for (size_t i = 0; i < batch.size(); ++i) {
      const SpanKey& key = *batch[i]->key;
      if (key.run != run || key.worker != worker) continue;
      SpanState& answer = *answers[i];
      if (key.span != span) {
        ++answer.other_spans;
        continue;
      }
      answer.state = state;
      answer.chunk_count = chunk_count;
      answer.opened_ms = opened_ms;
      answer.header = std::string(header);
    }
  }
  return reader.status("the span state lookup");
}

}  // namespace profdiff::aggregator::clickhouse
