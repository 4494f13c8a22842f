// Span state lookups combined into one query while another is out, against a
// scripted server (the SQL itself runs on real servers in the store tests).
#include "aggregator/clickhouse/span_state_lookup.h"

#include <string>
#include <thread>
#include <vector>

#include <absl/synchronization/mutex.h>
#include <absl/synchronization/notification.h>
#include <gtest/gtest.h>

#include "aggregator/clickhouse/row_binary.h"

namespace profdiff::aggregator::clickhouse {
namespace {

struct StoredSpan {
  std::string run, worker, span;
  uint8_t state;
  int64_t chunk_count;
  int64_t opened_ms;
  std::string header;
};

// Answers the spans query with every stored row whose run and worker the SQL
// names (a superset, as IN per column gives), and the home query with one
// shard per cityHash64 call.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<StoredSpan> rows, uint64_t home = 1)
      : rows_(std::move(rows)), home_(home) {}

  absl::StatusOr<std::string> Read(const std::string& sql) {
    {
      absl::MutexLock lock(&mu_);
      sql_.push_back(sql);
    }
    if (block_first_ != nullptr && !released_first_) {
      released_first_ = true;
      block_first_->WaitForNotification();
    }
    if (!fail_.ok()) return fail_;
    std::string answer;
    RowBinaryWriter writer(answer);
    if (sql.starts_with("SELECT arrayJoin")) {
      for (size_t at = sql.find("cityHash64("); at != std::string::npos;
           at = sql.find("cityHash64(", at + 1)) {
        writer.Number<uint64_t>(home_);
      }
      return answer;
    }
    for (const StoredSpan& row : rows_) {
      if (sql.find("'" + row.run + "'") == std::string::npos ||
          sql.find("'" + row.worker + "'") == std::string::npos) {
        continue;
      }
      writer.String(row.run);
      writer.String(row.worker);
      writer.String(row.span);
      writer.Number<uint8_t>(row.state);
      writer.Number<int64_t>(row.chunk_count);
      writer.Number<int64_t>(row.opened_ms);
      writer.String(row.header);
    }
    return answer;
  }

  SpanStateLookup::Read AsRead() {
    return [this](const std::string& sql) { return Read(sql); };
  }
  std::vector<std::string> sql() const {
    absl::MutexLock lock(&mu_);
    return sql_;
  }

  absl::Notification* block_first_ = nullptr;
  bool released_first_ = false;
  absl::Status fail_;

 private:
  std::vector<StoredSpan> rows_;
  uint64_t home_;
  mutable absl::Mutex mu_;
  std::vector<std::string> sql_;
};

TEST(SpanStateLookupTest, ALoneLookupReadsItsSpanAndTheWorkersOthers) {
  ScriptedServer server({{"run", "0.w", "s1", 2, 3, 100, "h1"},
                         {"run", "0.w", "s0", 2, 1, 50, ""},
                         {"run", "1.w", "s1", 1, 0, 70, ""}});
  SpanStateLookup lookup(2, server.AsRead());
  const absl::StatusOr<SpanState> state = lookup.Lookup({"run", "0.w", "s1"});
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->state, 2);
  EXPECT_EQ(state->chunk_count, 3);
  EXPECT_EQ(state->opened_ms, 100);
  EXPECT_EQ(state->header, "h1");
  EXPECT_EQ(state->home, 1u);
  EXPECT_EQ(state->other_spans, 1u);
  EXPECT_EQ(lookup.queries(), 1);
  EXPECT_EQ(server.sql().size(), 2u);  // the spans rows, the home shards

  const absl::StatusOr<SpanState> none = lookup.Lookup({"run", "2.w", "s1"});
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->state, 0);
  EXPECT_EQ(none->other_spans, 0u);
  EXPECT_EQ(none->header, "");
}

// Looks up `keys[0]` and, while its query is held out, the rest: they wait
// together for the next query. Answers in the keys' order.
std::vector<absl::StatusOr<SpanState>> LookUpBehindAQuery(
    ScriptedServer& server, SpanStateLookup& lookup,
    const std::vector<SpanKey>& keys) {
  absl::Notification release;
  server.block_first_ = &release;
  std::vector<absl::StatusOr<SpanState>> answers(keys.size());
  std::vector<std::jthread> threads;
  threads.emplace_back([&] { answers[0] = lookup.Lookup(keys[0]); });
  while (server.sql().empty()) std::this_thread::yield();  // the first is out
  for (size_t i = 1; i < keys.size(); ++i)
    threads.emplace_back([&, i] { answers[i] = lookup.Lookup(keys[i]); });
  while (lookup.waiting() < keys.size() - 1) std::this_thread::yield();
  release.Notify();
  threads.clear();  // joins
  return answers;
}

TEST(SpanStateLookupTest, LookupsArrivingDuringAQueryGoTogetherInTheNext) {
  ScriptedServer server({{"run", "2.w", "s", 1, 0, 10, "resumed"}});
  SpanStateLookup lookup(2, server.AsRead());
  const std::vector<absl::StatusOr<SpanState>> answers =
      LookUpBehindAQuery(server, lookup,
                         {{"run", "0.w", "s"},
                          {"run", "1.w", "s"},
                          {"run", "2.w", "s"},
                          {"run", "3.w", "s"}});

  EXPECT_EQ(lookup.queries(), 2);
  const std::vector<std::string> sql = server.sql();
  ASSERT_EQ(sql.size(), 4u);
  for (const char* worker : {"'1.w'", "'2.w'", "'3.w'"}) {
    EXPECT_NE(sql[2].find(worker), std::string::npos) << sql[2];
  }
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(answers[i].ok()) << i << ": " << answers[i].status();
    EXPECT_EQ(answers[i]->state, i == 2 ? 1 : 0) << i;
    EXPECT_EQ(answers[i]->header, i == 2 ? "resumed" : "") << i;
  }
}

TEST(SpanStateLookupTest, RowsOfAnotherRunInTheSameBatchAreNotTheSpans) {
  // IN per column reads run "a" worker "0.w" for a batch of (a, 1.w) and
  // (b, 0.w): that row belongs to neither.
  ScriptedServer server({{"a", "0.w", "s", 2, 1, 5, "other run"}});
  SpanStateLookup lookup(2, server.AsRead());
  for (const absl::StatusOr<SpanState>& answer : LookUpBehindAQuery(
           server, lookup,
           {{"c", "9.w", "s"}, {"a", "1.w", "s"}, {"b", "0.w", "s"}})) {
    ASSERT_TRUE(answer.ok()) << answer.status();
    EXPECT_EQ(answer->state, 0);
    EXPECT_EQ(answer->other_spans, 0u);
  }
}

TEST(SpanStateLookupTest, AFailedQueryFailsItsLookupsAndTheNextQueriesAgain) {
  ScriptedServer server({});
  server.fail_ = absl::UnavailableError("clickhouse 127.0.0.1:1: refused");
  SpanStateLookup lookup(2, server.AsRead());
  EXPECT_TRUE(absl::IsUnavailable(lookup.Lookup({"r", "0.w", "s"}).status()));
  server.fail_ = absl::OkStatus();
  EXPECT_TRUE(lookup.Lookup({"r", "0.w", "s"}).ok());
  EXPECT_EQ(lookup.queries(), 2);
}

TEST(SpanStateLookupTest, AHomeShardPastTheShardsIsDataLoss) {
  ScriptedServer server({}, /*home=*/2);
  SpanStateLookup lookup(2, server.AsRead());
  const absl::Status status = lookup.Lookup({"r", "0.w", "s"}).status();
  EXPECT_TRUE(absl::IsDataLoss(status)) << status;
  EXPECT_NE(status.message().find("not a shard index"), std::string::npos);
}

}  // namespace
}  // namespace profdiff::aggregator::clickhouse
