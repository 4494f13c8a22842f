// What only the ClickHouse store has: exactly-once when two replicas write the
// same chunk, and a cluster that is not what --store names refused (the
// contract tests in collector_test.cc cover the rest; its --store grammar and
// wire format: clickhouse_url_test.cc, row_binary_test.cc).
#include "aggregator/clickhouse/clickhouse_store.h"

#include <unistd.h>

#include <filesystem>
#include <functional>
#include <thread>
#include <vector>

#include <absl/synchronization/mutex.h>
#include <absl/synchronization/notification.h>
#include <gmock/gmock.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "aggregator/clickhouse/clickhouse_url.h"
#include "aggregator/clickhouse/event_rows.h"
#include "aggregator/clickhouse/events_mirror.h"
#include "aggregator/clickhouse/http_client.h"
#include "aggregator/clickhouse/row_binary.h"
#include "aggregator/run_digests.h"
#include "base/stable_hash.h"
#include "base/str_cat.h"
#include "tests/aggregator/clickhouse_cluster.h"
#include "tests/aggregator/upload_test_client.h"
#include "tests/support/digest_cut.h"
#include "tests/support/traces_dir.h"
#include "tests/support/wait_until.h"

namespace profdiff::aggregator {
namespace {

namespace fs = std::filesystem;

class ClickHouseStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_dir_ = (fs::path(::testing::TempDir()) /
                   ("clickhouse_store_test_" + std::to_string(getpid())))
                      .string();
    file_ = (test_support::TracesDir() /
             "param/dlrm_kineto/worker0_step_12.1694128201545.pt.trace.json.gz")
                .string();
    if (!fs::exists(file_)) GTEST_SKIP() << "needs " << file_;
    absl::StatusOr<std::unique_ptr<testing::ClickHouseCluster>> cluster =
        testing::ClickHouseCluster::Start(server_dir_, 2);
    if (absl::IsNotFound(cluster.status())) GTEST_SKIP() << cluster.status();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = std::move(cluster).value();
    options_.clickhouse_url = cluster_->Url("store_test");
    // Most tests here are about the `events` rows; a fresh database would
    // leave the table empty otherwise.
    options_.events_table = StoreOptions::EventsTable::kFill;
  }

  std::unique_ptr<ClickHouseStore> Open() {
    absl::StatusOr<std::unique_ptr<ClickHouseStore>> store =
        ClickHouseStore::Open(options_);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  // Stores `span` whole through one lease: opened, every chunk, closed.
  static void StoreWhole(Store& store, const testing::PreparedSpan& span) {
    absl::StatusOr<Store::OpenedSpan> opened = store.OpenSpan(span.header);
    ASSERT_TRUE(opened.ok()) << opened.status();
    for (const v1::TraceChunk& chunk : span.chunks)
      ASSERT_TRUE(store.AppendChunk(*opened->lease, chunk).ok());
    v1::SpanEnd end;
    end.set_chunk_count(span.chunks.size());
    end.set_event_count(span.event_count);
    ASSERT_TRUE(store.CloseSpan(*opened->lease, end).ok());
  }

  // Runs `sql` on each shard in turn (their local tables).
  void QueryEveryShard(const std::string& sql) const {
    for (const std::string& address : ShardAddresses()) {
      clickhouse::HttpClient shard(address, "store_test", absl::Seconds(30));
      const absl::StatusOr<std::string> answer = shard.Query(sql);
      ASSERT_TRUE(answer.ok()) << address << ": " << answer.status();
    }
  }

  // HOST:PORT of each shard, in --store order.
  std::vector<std::string> ShardAddresses() const {
    const std::string url = options_.clickhouse_url.substr(13);
    const std::string hosts = url.substr(0, url.find('/'));
    return {hosts.substr(0, hosts.find(',')),
            hosts.substr(hosts.find(',') + 1)};
  }

  // The servers' folders: shard<i> each.
  const std::string& ServerDir() const { return server_dir_; }

  std::string server_dir_;
  std::string file_;
  std::unique_ptr<testing::ClickHouseCluster> cluster_;
  StoreOptions options_;
};

// Two replicas each believe they hold the span (a network split: no lease spans
// replicas) and both store chunks 3 and 4: every read still counts each chunk
// once.
TEST_F(ClickHouseStoreTest, TwoReplicasWritingTheSameChunksCountThemOnce) {
  const testing::PreparedSpan span = testing::PrepareSpan(file_, "race", 300);
  ASSERT_GE(span.chunks.size(), 6u);
  std::unique_ptr<ClickHouseStore> a = Open(), b = Open();
  ASSERT_TRUE(a && b);
  absl::StatusOr<Store::OpenedSpan> on_a = a->OpenSpan(span.header);
  ASSERT_TRUE(on_a.ok()) << on_a.status();
  for (size_t k = 0; k < 3; ++k)
    ASSERT_TRUE(a->AppendChunk(*on_a->lease, span.chunks[k]).ok());
  absl::StatusOr<Store::OpenedSpan> on_b = b->OpenSpan(span.header);
  ASSERT_TRUE(on_b.ok()) << on_b.status();
  EXPECT_EQ(on_b->durable_sequence, 2);  // the ledger's, not a replica's memory
  for (size_t k = 3; k < 5; ++k) {
    ASSERT_TRUE(a->AppendChunk(*on_a->lease, span.chunks[k]).ok());
    ASSERT_TRUE(b->AppendChunk(*on_b->lease, span.chunks[k]).ok());
  }
  for (size_t k = 5; k < span.chunks.size(); ++k)
    ASSERT_TRUE(b->AppendChunk(*on_b->lease, span.chunks[k]).ok());
  v1::SpanEnd end;
  end.set_chunk_count(span.chunks.size());
  end.set_event_count(span.event_count);
  ASSERT_TRUE(b->CloseSpan(*on_b->lease, end).ok());

  absl::StatusOr<v1::StoredRun> run = a->GetRun("race", RunDetail::kWorkers);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->event_count(), span.event_count);
  ASSERT_EQ(run->workers_size(), 1);
  EXPECT_EQ(run->workers(0).spans(0).durable_sequence(),
            static_cast<int64_t>(span.chunks.size()) - 1);
  // Each replica's events rows go in beside the acks (a's are flushed by
  // EventsPerShard).
  ASSERT_TRUE(b->FlushEventRows().ok());
  absl::StatusOr<std::vector<int64_t>> per_shard = a->EventsPerShard("race");
  ASSERT_TRUE(per_shard.ok()) << per_shard.status();
  EXPECT_EQ((*per_shard)[0] + (*per_shard)[1], span.event_count);
  v1::GetProfileRequest request;
  request.set_run("race");
  absl::StatusOr<v1::RunProfile> profile = a->GetProfile(request);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->workers(0).event_count(), span.event_count);
}

// The store's reads wait for the whole answer (wait_end_of_query) in the
// server's memory: by default ClickHouse held each answer in a temp file under
// tmp/http_buffers, made and removed per query.
TEST_F(ClickHouseStoreTest, ReadsMakeNoTempFileOnTheServers) {
  const testing::PreparedSpan span = testing::PrepareSpan(file_, "reads", 300);
  std::unique_ptr<ClickHouseStore> store = Open();
  ASSERT_TRUE(store);
  StoreWhole(*store, span);
  absl::StatusOr<v1::StoredRun> run =
      store->GetRun("reads", RunDetail::kWorkers);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->event_count(), span.event_count);
  v1::GetProfileRequest request;
  request.set_run("reads");
  ASSERT_TRUE(store->GetProfile(request).ok());
  ASSERT_TRUE(store->FlushEventRows().ok());
  ASSERT_TRUE(store->EventsPerShard("reads").ok());
  for (int shard = 0; shard < cluster_->shards(); ++shard) {
    const fs::path buffers = fs::path(ServerDir()) /
                             ("shard" + std::to_string(shard)) / "tmp" /
                             "http_buffers";
    EXPECT_FALSE(fs::exists(buffers)) << buffers;
  }
}

// By default (auto) a fresh database's events table is left empty: a run is
// stored and read as with it, and no event row is made. A store asked to fill
// it fills it from the ledger, and from then on auto fills it too (a
// deployment that has the rows keeps them coming) unless told not to.
TEST_F(ClickHouseStoreTest,
       AnEmptyEventsTableIsLeftSoUntilAskedAndThenFilledFromTheLedger) {
  const testing::PreparedSpan span = testing::PrepareSpan(file_, "plain", 300);
  ASSERT_GE(span.chunks.size(), 2u);
  options_.events_table = StoreOptions::EventsTable::kAuto;
  {
    std::unique_ptr<ClickHouseStore> store = Open();
    ASSERT_TRUE(store);
    EXPECT_FALSE(store->fills_events_table());
    StoreWhole(*store, span);
    absl::StatusOr<v1::StoredRun> run =
        store->GetRun("plain", RunDetail::kWorkers);
    ASSERT_TRUE(run.ok()) << run.status();
    EXPECT_EQ(run->event_count(), span.event_count);
    v1::GetProfileRequest request;
    request.set_run("plain");
    absl::StatusOr<v1::RunProfile> profile = store->GetProfile(request);
    ASSERT_TRUE(profile.ok()) << profile.status();
    EXPECT_EQ(profile->workers(0).event_count(), span.event_count);
    EXPECT_EQ(store->EventsPerShard("plain").status().code(),
              absl::StatusCode::kFailedPrecondition);
    EXPECT_EQ(store->RepairEventRows(absl::ZeroDuration()).status().code(),
              absl::StatusCode::kFailedPrecondition);
  }
  for (const std::string& address : ShardAddresses()) {
    clickhouse::HttpClient shard(address, "store_test", absl::Seconds(30));
    for (const char* table : {"events_local", "events_stored_local"}) {
      const absl::StatusOr<std::string> rows = shard.Query(
          std::string("SELECT count() FROM ") + table + " FORMAT TSV");
      ASSERT_TRUE(rows.ok()) << rows.status();
      EXPECT_EQ(*rows, "0\n") << address << " " << table;
    }
  }

  options_.events_table = StoreOptions::EventsTable::kFill;
  {
    std::unique_ptr<ClickHouseStore> store = Open();
    ASSERT_TRUE(store);
    EXPECT_TRUE(store->fills_events_table());
    absl::StatusOr<int64_t> repaired =
        store->RepairEventRows(absl::ZeroDuration());
    ASSERT_TRUE(repaired.ok()) << repaired.status();
    EXPECT_EQ(*repaired, static_cast<int64_t>(span.chunks.size()));
    absl::StatusOr<std::vector<int64_t>> per_shard =
        store->EventsPerShard("plain");
    ASSERT_TRUE(per_shard.ok()) << per_shard.status();
    EXPECT_EQ((*per_shard)[0] + (*per_shard)[1], span.event_count);
  }

  options_.events_table = StoreOptions::EventsTable::kAuto;
  std::unique_ptr<ClickHouseStore> filled = Open();
  ASSERT_TRUE(filled);
  EXPECT_TRUE(filled->fills_events_table());
  options_.events_table = StoreOptions::EventsTable::kLeave;
  std::unique_ptr<ClickHouseStore> left = Open();
  ASSERT_TRUE(left);
  EXPECT_FALSE(left->fills_events_table());
}

// A try that stored its event rows but not its ledger row (the shard died
// between the inserts, and the chunk went to another shard under a fresh
// attempt) leaves rows no read counts.
TEST_F(ClickHouseStoreTest, EventRowsWithoutTheirLedgerRowAreNeverCounted) {
  const testing::PreparedSpan span =
      testing::PrepareSpan(file_, "orphans", 1000);
  std::unique_ptr<ClickHouseStore> store = Open();
  ASSERT_TRUE(store);
  ASSERT_NO_FATAL_FAILURE(StoreWhole(*store, span));
  ASSERT_TRUE(store->FlushEventRows().ok());
  // A failed try's leftovers on both shards: chunk 0's events again, under an
  // attempt with no ledger row, one larger than any real one.
  ASSERT_NO_FATAL_FAILURE(QueryEveryShard(
      "INSERT INTO events_local SELECT run, worker, span, seq, "
      "18446744073709551615, idx, kind, name_id, "
      "start_ns, duration_ns, device, thread, correlation, external_id, "
      "sequence_number, input_shapes_id "
      "FROM events WHERE run = 'orphans' AND seq = 0"));
  clickhouse::HttpClient any(ShardAddresses()[0], "store_test",
                             absl::Seconds(30));
  absl::StatusOr<std::string> raw =
      any.Query("SELECT count() FROM events WHERE run = 'orphans' FORMAT TSV");
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_GT(std::stoll(*raw), span.event_count);  // the leftovers are there
  absl::StatusOr<std::vector<int64_t>> per_shard =
      store->EventsPerShard("orphans");
  ASSERT_TRUE(per_shard.ok()) << per_shard.status();
  EXPECT_EQ((*per_shard)[0] + (*per_shard)[1],
            span.event_count);  // and not counted
  absl::StatusOr<v1::StoredRun> run =
      store->GetRun("orphans", RunDetail::kWorkers);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->event_count(), span.event_count);
}

TEST_F(ClickHouseStoreTest, ShardsThatAreNotTheClusterAreRefusedAtStart) {
  options_.clickhouse_url = "clickhouse://" +
                            options_.clickhouse_url.substr(
                                13, options_.clickhouse_url.find(',') - 13) +
                            "/store_test";  // one shard of a two-shard cluster
  absl::StatusOr<std::unique_ptr<ClickHouseStore>> store =
      ClickHouseStore::Open(options_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(),
              ::testing::HasSubstr("--clickhouse-cluster"));
  options_.clickhouse_cluster = "nope";
  options_.clickhouse_url = cluster_->Url("store_test");
  store = ClickHouseStore::Open(options_);
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), ::testing::HasSubstr("nope"));
}

// A database an older profdiff made keeps its old columns (CREATE TABLE IF NOT
// EXISTS leaves it be): the store refuses to start, naming the table and
// column, rather than fail every write.
TEST_F(ClickHouseStoreTest,
       TablesOfAnOlderSchemaAreRefusedAtStartNamingTheColumn) {
  absl::StatusOr<clickhouse::ClickHouseUrl> url =
      clickhouse::ParseClickHouseUrl(cluster_->Url("old_schema"));
  ASSERT_TRUE(url.ok()) << url.status();
  clickhouse::HttpClient shard(url->shards.front(), "", absl::Seconds(30));
  ASSERT_TRUE(shard.Query("CREATE DATABASE old_schema").ok());
  ASSERT_TRUE(shard
                  .Query("CREATE TABLE old_schema.chunks_local (run String, "
                         "worker String, span String, seq Int64, "
                         "attempt UInt64, event_count UInt32, batch_bytes "
                         "UInt64, stored_ms Int64, batch String) "
                         "ENGINE = ReplacingMergeTree(attempt) ORDER BY (run, "
                         "worker, span, seq)")
                  .ok());
  options_.clickhouse_url = cluster_->Url("old_schema");
  absl::StatusOr<std::unique_ptr<ClickHouseStore>> store =
      ClickHouseStore::Open(options_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(
      store.status().message(),
      ::testing::HasSubstr("old_schema.chunks_local has no column batch_zstd"));
}

// Issue 32: a digest one replica made is kept in ClickHouse, and another
// replica (or the same after a restart) reads it instead of reading every
// profile again; a later version of the run is made anew.
TEST_F(ClickHouseStoreTest, ReplicasShareTheDigestsOneOfThemMade) {
  const testing::PreparedSpan span =
      testing::PrepareSpan(file_, "shared", 2000);
  std::unique_ptr<ClickHouseStore> a = Open(), b = Open();
  ASSERT_TRUE(a && b);
  ASSERT_NO_FATAL_FAILURE(StoreWhole(*a, span));

  v1::GetRunDigestRequest request;
  request.set_run("shared");
  RunDigests on_a(a.get(), 1 << 30), on_b(b.get(), 1 << 30);
  absl::StatusOr<std::shared_ptr<const v1::RunDigest>> made = on_a.Get(request);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(on_a.stats().builds, 1);
  absl::StatusOr<std::shared_ptr<const v1::RunDigest>> read = on_b.Get(request);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(on_b.stats().builds, 0);
  EXPECT_EQ(on_b.stats().loaded, 1);
  EXPECT_EQ((*read)->SerializeAsString(), (*made)->SerializeAsString());
  ASSERT_EQ((*read)->ranks_size(), 1);
  // Kept per version of the run: another version finds nothing kept.
  absl::StatusOr<std::optional<v1::RunDigest>> other =
      b->LoadDigest("shared", "shared|1|1|", "0/0/0");
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_FALSE(other->has_value());
}

// Issue 50: a span one stream uploaded from its first chunk has its worker's
// profile built at close from the batches that stream saw, not read back from
// the servers. It is the profile the ledger's batches give (a resumed span is
// built from those), and it is stored for the other replicas.
TEST_F(ClickHouseStoreTest, AProfileBuiltFromTheStreamsBatchesIsTheLedgers) {
  std::unique_ptr<ClickHouseStore> a = Open();
  ASSERT_TRUE(a);
  const auto upload = [&](const std::string& run, size_t break_after) {
    const testing::PreparedSpan span = testing::PrepareSpan(file_, run, 500);
    ASSERT_GT(span.chunks.size(), 3u);
    absl::StatusOr<Store::OpenedSpan> opened = a->OpenSpan(span.header);
    ASSERT_TRUE(opened.ok()) << opened.status();
    for (size_t k = 0; k < span.chunks.size(); ++k) {
      if (k == break_after) {  // the stream breaks; the agent resumes
        opened->lease.reset();
        v1::UploadHeader resumed = span.header;
        resumed.set_resume(true);
        opened = a->OpenSpan(resumed);
        ASSERT_TRUE(opened.ok()) << opened.status();
        ASSERT_EQ(opened->durable_sequence, static_cast<int64_t>(k) - 1);
      }
      ASSERT_TRUE(a->AppendChunk(*opened->lease, span.chunks[k]).ok());
    }
    v1::SpanEnd end;
    end.set_chunk_count(span.chunks.size());
    end.set_event_count(span.event_count);
    ASSERT_TRUE(a->CloseSpan(*opened->lease, end).ok());
  };
  upload("from_batches", /*break_after=*/SIZE_MAX);
  upload("from_ledger", /*break_after=*/2);
  ASSERT_TRUE(test_support::WaitUntil(
      [&] {
        return a->ProfileBuildsPending("from_batches") == 0 &&
               a->ProfileBuildsPending("from_ledger") == 0;
      },
      absl::Seconds(30)));
  const auto profile_of = [](const Store& store, const std::string& run) {
    v1::GetProfileRequest request;
    request.set_run(run);
    absl::StatusOr<v1::RunProfile> profile = store.GetProfile(request);
    EXPECT_TRUE(profile.ok()) << profile.status();
    if (!profile.ok() || profile->workers_size() != 1)
      return v1::WorkerProfile();
    v1::WorkerProfile worker = profile->workers(0);
    worker.mutable_worker()->clear_run();
    return worker;
  };
  EXPECT_EQ(a->profiles_built_from_batches(), 1);  // not the resumed one
  const v1::WorkerProfile from_batches = profile_of(*a, "from_batches");
  EXPECT_GT(from_batches.event_count(), 0);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
      from_batches, profile_of(*a, "from_ledger")));
  // Stored within a flush (a second): another replica, with nothing built
  // in its memory, reads the row.
  std::unique_ptr<ClickHouseStore> b = Open();
  ASSERT_TRUE(b);
  ASSERT_TRUE(test_support::WaitUntil(
      [&] {
        absl::StatusOr<v1::StoredRun> run =
            b->GetRun("from_batches", RunDetail::kWorkers);
        return run.ok() && run->workers_size() == 1 &&
               run->workers(0).step_count() > 0;
      },
      absl::Seconds(30)))
      << "the profile built from batches was never stored";
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
      from_batches, profile_of(*b, "from_batches")));
}

// Issue 50: a span of one chunk is opened and closed with that chunk's rows.
// Its OPEN row goes before the chunk's ledger row and its CLOSED row after it
// (with the next commit's span rows), so the span needs no commit of its own.
TEST_F(ClickHouseStoreTest, ASpanOfOneChunkIsOpenedAndClosedInItsChunksCommit) {
  const testing::PreparedSpan span = testing::PrepareSpan(file_, "one", 100000);
  ASSERT_EQ(span.chunks.size(), 1u);
  std::unique_ptr<ClickHouseStore> store = Open();
  ASSERT_TRUE(store);
  absl::StatusOr<Store::OpenedSpan> opened = store->OpenSpan(span.header);
  ASSERT_TRUE(opened.ok()) << opened.status();
  // Nothing of the span is stored until its chunk is.
  absl::StatusOr<v1::StoredRun> before =
      store->GetRun("one", RunDetail::kWorkers);
  EXPECT_TRUE(absl::IsNotFound(before.status())) << before.status();

  store->HoldWritesForTesting(true);  // the chunk stays queued
  absl::StatusOr<int64_t> appended;
  absl::Status closed = absl::UnknownError("not answered");
  absl::Notification chunk_done, close_done;
  std::vector<std::string> order;
  absl::Mutex order_mu;
  store->StartAppendChunk(*opened->lease, span.chunks[0],
                          [&](absl::StatusOr<int64_t> answer) {
                            appended = std::move(answer);
                            absl::MutexLock lock(&order_mu);
                            order.push_back("chunk");
                            chunk_done.Notify();
                          });
  v1::SpanEnd end;
  end.set_chunk_count(1);
  end.set_event_count(span.event_count);
  v1::SpanEnd wrong = end;
  wrong.set_event_count(span.event_count + 1);
  Store::CloseDone done = [&](const absl::Status& answer) {
    closed = answer;
    absl::MutexLock lock(&order_mu);
    order.push_back("close");
    close_done.Notify();
  };
  // Counts that disagree are left to the usual close, which refuses them.
  EXPECT_FALSE(store->TryCloseWithLastChunk(*opened->lease, wrong, done));
  EXPECT_TRUE(store->TryCloseWithLastChunk(*opened->lease, end, done));
  EXPECT_EQ(store->spans_closed_with_last_chunk(), 1);
  store->HoldWritesForTesting(false);
  chunk_done.WaitForNotification();
  close_done.WaitForNotification();
  ASSERT_TRUE(appended.ok()) << appended.status();
  EXPECT_EQ(*appended, 0);
  EXPECT_TRUE(closed.ok()) << closed;
  EXPECT_THAT(order, ::testing::ElementsAre("chunk", "close"));

  absl::StatusOr<v1::StoredRun> run = store->GetRun("one", RunDetail::kWorkers);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->event_count(), span.event_count);
  EXPECT_EQ(run->closed_worker_count(), 1);
  // Another replica, with nothing in memory, finds the span closed.
  std::unique_ptr<ClickHouseStore> other = Open();
  ASSERT_TRUE(other);
  absl::StatusOr<Store::OpenedSpan> again = other->OpenSpan(span.header);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->closed);
  EXPECT_EQ(again->durable_sequence, 0);
}

// Issue 50: a CLOSED row rides with its last chunk's rows and is stored after
// that chunk's ledger row, so a chunk whose ledger row is not stored takes
// its span's close down with it: the span is never stored closed without it.
TEST_F(ClickHouseStoreTest, ACloseRidingWithItsLastChunkFailsWithItsLedgerRow) {
  const testing::PreparedSpan span =
      testing::PrepareSpan(file_, "lost", 100000);
  ASSERT_EQ(span.chunks.size(), 1u);
  std::unique_ptr<ClickHouseStore> store = Open();
  ASSERT_TRUE(store);
  absl::StatusOr<Store::OpenedSpan> opened = store->OpenSpan(span.header);
  ASSERT_TRUE(opened.ok()) << opened.status();
  store->HoldWritesForTesting(true);
  absl::StatusOr<int64_t> appended;
  absl::Status closed;
  absl::Notification chunk_done, close_done;
  store->StartAppendChunk(*opened->lease, span.chunks[0],
                          [&](absl::StatusOr<int64_t> answer) {
                            appended = std::move(answer);
                            chunk_done.Notify();
                          });
  v1::SpanEnd end;
  end.set_chunk_count(1);
  end.set_event_count(span.event_count);
  Store::CloseDone done = [&](const absl::Status& answer) {
    closed = answer;
    close_done.Notify();
  };
  ASSERT_TRUE(store->TryCloseWithLastChunk(*opened->lease, end, done));
  // The ledger insert fails on every shard; the inserts before it (the
  // span's OPEN row, its events) do not.
  const std::vector<std::string> shards = cluster_->Addresses();
  for (const std::string& address : shards) {
    clickhouse::HttpClient shard(address, "store_test", absl::Seconds(30));
    ASSERT_TRUE(shard.Query("RENAME TABLE chunks_local TO chunks_away").ok());
  }
  store->HoldWritesForTesting(false);
  chunk_done.WaitForNotification();
  close_done.WaitForNotification();
  EXPECT_FALSE(appended.ok());
  EXPECT_FALSE(closed.ok());
  for (const std::string& address : shards) {
    clickhouse::HttpClient shard(address, "store_test", absl::Seconds(30));
    absl::StatusOr<std::string> states = shard.Query(
        "SELECT groupArray(state) FROM spans_local WHERE run = 'lost' "
        "FORMAT TSV");
    ASSERT_TRUE(states.ok()) << states.status();
    EXPECT_EQ(states->find('2'), std::string::npos)
        << address << " stored the span CLOSED: " << *states;
  }
}

// A CLOSED row that cannot be stored fails only the chunk that carried it:
// another stream's chunk in the same commit has its ledger row stored, and is
// answered so.
TEST_F(ClickHouseStoreTest, AFailedCloseFailsOnlyTheChunkThatCarriedIt) {
  const testing::PreparedSpan a = testing::PrepareSpan(file_, "pair", 2000);
  const testing::PreparedSpan b =
      testing::PrepareSpan((fs::path(file_).parent_path() /
                            "worker1_step_12.1694128201556.pt.trace.json.gz")
                               .string(),
                           "pair", 2000);
  ASSERT_EQ(a.chunks.size(), 2u);
  ASSERT_EQ(b.chunks.size(), 2u);
  // One shard, so that both chunks are in one commit.
  absl::StatusOr<std::unique_ptr<testing::ClickHouseCluster>> one =
      testing::ClickHouseCluster::Start(
          (fs::path(::testing::TempDir()) /
           ("clickhouse_one_shard_" + std::to_string(getpid())))
              .string(),
          1);
  ASSERT_TRUE(one.ok()) << one.status();
  options_.clickhouse_url = (*one)->Url("store_test");
  // Each span's first chunk stored by one replica; another resumes both, so
  // their second chunks carry no OPEN row (spans_local goes away below).
  {
    std::unique_ptr<ClickHouseStore> first = Open();
    ASSERT_TRUE(first);
    for (const testing::PreparedSpan* span : {&a, &b}) {
      absl::StatusOr<Store::OpenedSpan> opened = first->OpenSpan(span->header);
      ASSERT_TRUE(opened.ok()) << opened.status();
      ASSERT_TRUE(first->AppendChunk(*opened->lease, span->chunks[0]).ok());
    }
  }
  std::unique_ptr<ClickHouseStore> store = Open();
  ASSERT_TRUE(store);
  absl::StatusOr<Store::OpenedSpan> on_a = store->OpenSpan(a.header);
  absl::StatusOr<Store::OpenedSpan> on_b = store->OpenSpan(b.header);
  ASSERT_TRUE(on_a.ok() && on_b.ok()) << on_a.status() << on_b.status();
  ASSERT_EQ(on_a->durable_sequence, 0);
  store->HoldWritesForTesting(true);
  absl::StatusOr<int64_t> a_chunk, b_chunk;
  absl::Status a_closed;
  absl::Notification a_done, b_done, a_close_done;
  store->StartAppendChunk(*on_a->lease, a.chunks[1],
                          [&](absl::StatusOr<int64_t> answer) {
                            a_chunk = std::move(answer);
                            a_done.Notify();
                          });
  store->StartAppendChunk(*on_b->lease, b.chunks[1],
                          [&](absl::StatusOr<int64_t> answer) {
                            b_chunk = std::move(answer);
                            b_done.Notify();
                          });
  v1::SpanEnd end;
  end.set_chunk_count(2);
  end.set_event_count(a.event_count);
  Store::CloseDone done = [&](const absl::Status& answer) {
    a_closed = answer;
    a_close_done.Notify();
  };
  ASSERT_TRUE(store->TryCloseWithLastChunk(*on_a->lease, end, done));
  clickhouse::HttpClient shard((*one)->Addresses().front(), "store_test",
                               absl::Seconds(30));
  ASSERT_TRUE(shard.Query("RENAME TABLE spans_local TO spans_away").ok());
  store->HoldWritesForTesting(false);
  a_done.WaitForNotification();
  b_done.WaitForNotification();
  a_close_done.WaitForNotification();
  EXPECT_FALSE(a_chunk.ok());
  EXPECT_FALSE(a_closed.ok());
  ASSERT_TRUE(b_chunk.ok()) << b_chunk.status();
  EXPECT_EQ(*b_chunk, 1);
}

// Two files of one worker uploaded at once (agent --parallel): neither
// OpenSpan sees the other's row, and a profile built from one span's batches
// would be all that is built. Both are built from the ledger, together.
TEST_F(ClickHouseStoreTest, TwoSpansOfOneWorkerAtOnceAreBuiltTogether) {
  std::unique_ptr<ClickHouseStore> store = Open();
  ASSERT_TRUE(store);
  testing::PreparedSpan first = testing::PrepareSpan(file_, "pair", 1000);
  testing::PreparedSpan second =
      testing::PrepareSpan((fs::path(file_).parent_path() /
                            "worker1_step_12.1694128201556.pt.trace.json.gz")
                               .string(),
                           "pair", 1000);
  *second.header.mutable_worker() = first.header.worker();  // one worker
  absl::StatusOr<Store::OpenedSpan> a = store->OpenSpan(first.header);
  absl::StatusOr<Store::OpenedSpan> b = store->OpenSpan(second.header);
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
  for (const auto& [span, opened] : {std::pair{&first, &*a}, {&second, &*b}}) {
    for (const v1::TraceChunk& chunk : span->chunks)
      ASSERT_TRUE(store->AppendChunk(*opened->lease, chunk).ok());
    v1::SpanEnd end;
    end.set_chunk_count(span->chunks.size());
    end.set_event_count(span->event_count);
    ASSERT_TRUE(store->CloseSpan(*opened->lease, end).ok());
  }
  ASSERT_TRUE(test_support::WaitUntil(
      [&] { return store->ProfileBuildsPending("pair") == 0; },
      absl::Seconds(30)));
  EXPECT_EQ(store->profiles_built_from_batches(), 0);
  v1::GetProfileRequest request;
  request.set_run("pair");
  absl::StatusOr<v1::RunProfile> profile = store->GetProfile(request);
  ASSERT_TRUE(profile.ok()) << profile.status();
  ASSERT_EQ(profile->workers_size(), 1);
  EXPECT_EQ(profile->workers(0).event_count(),
            first.event_count + second.event_count);
}

// Issue 50: the `events` rows go in beside the acknowledged path. Rows a
// replica held when it died are made from the ledger's batches, byte for byte
// the rows the stream would have stored, once each however often the repair
// runs; rows younger than the grace are left to the replica holding them.
TEST_F(ClickHouseStoreTest, EventsRowsADeadReplicaHeldAreMadeFromTheLedger) {
  const testing::PreparedSpan span = testing::PrepareSpan(file_, "held", 300);
  testing::PreparedSpan direct = testing::PrepareSpan(file_, "direct", 300);
  std::unique_ptr<ClickHouseStore> store = Open();
  ASSERT_TRUE(store);
  store->HoldEventFlushesForTesting(true);  // its rows stay held until dropped
  ASSERT_NO_FATAL_FAILURE(StoreWhole(*store, direct));
  ASSERT_TRUE(store->FlushEventRows().ok());
  ASSERT_NO_FATAL_FAILURE(StoreWhole(*store, span));
  store->DropHeldEventRowsForTesting();  // died before its flush
  absl::StatusOr<std::vector<int64_t>> per_shard =
      store->EventsPerShard("held");
  ASSERT_TRUE(per_shard.ok()) << per_shard.status();
  EXPECT_EQ((*per_shard)[0] + (*per_shard)[1], 0);
  // Read after the acks: the ledger has every chunk.
  absl::StatusOr<v1::StoredRun> run =
      store->GetRun("held", RunDetail::kSummary);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->event_count(), span.event_count);

  absl::StatusOr<int64_t> young = store->RepairEventRows(absl::Hours(1));
  ASSERT_TRUE(young.ok()) << young.status();
  EXPECT_EQ(*young, 0);
  absl::StatusOr<int64_t> repaired =
      store->RepairEventRows(absl::ZeroDuration());
  ASSERT_TRUE(repaired.ok()) << repaired.status();
  EXPECT_EQ(*repaired, static_cast<int64_t>(span.chunks.size()));
  absl::StatusOr<int64_t> again = store->RepairEventRows(absl::ZeroDuration());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, 0);
  per_shard = store->EventsPerShard("held");
  ASSERT_TRUE(per_shard.ok()) << per_shard.status();
  EXPECT_EQ((*per_shard)[0] + (*per_shard)[1], span.event_count);

  // The same rows as the stream's, but for the run and the attempt.
  clickhouse::HttpClient any(ShardAddresses()[0], "store_test",
                             absl::Seconds(30));
  const auto digest = [&](const std::string& run) {
    absl::StatusOr<std::string> answer = any.Query(base::StrCat(
        "SELECT count(), sum(cityHash64(worker, span, seq, idx, kind, "
        "name_id, start_ns, duration_ns, device, thread, correlation, "
        "external_id, sequence_number, input_shapes_id)) FROM events WHERE "
        "run = '",
        run, "' FORMAT TSV"));
    EXPECT_TRUE(answer.ok()) << answer.status();
    return answer.ok() ? *answer : "";
  };
  EXPECT_EQ(digest("held"), digest("direct"));
  EXPECT_THAT(digest("held"),
              ::testing::StartsWith(std::to_string(span.event_count) + "\t"));
}

// Hands each chunk of `span` to `mirror` as the store does once its ledger
// row is stored (run "mirror", worker "0.w", span "s", attempt 7).
void AddChunks(const testing::PreparedSpan& span,
               clickhouse::EventsMirror& mirror) {
  for (size_t k = 0; k < span.chunks.size(); ++k) {
    const v1::EventBatch& batch = span.chunks[k].events();
    std::vector<uint64_t> ids;
    for (const std::string& name : batch.strings())
      ids.push_back(base::StableHash64(name));
    const clickhouse::ChunkKey key{"mirror", "0.w", "s",
                                   static_cast<int64_t>(k), 7};
    std::string events, marker;
    clickhouse::AppendEventBlock(key, batch, ids, events);
    clickhouse::AppendEventMarker(key, marker);
    mirror.Add({"mirror", "0.w", "s", static_cast<int64_t>(k)},
               std::move(events), std::move(marker));
  }
}

// The one number `sql` (a count) answers on `shard`.
int64_t CountOn(const clickhouse::HttpClient& shard, const std::string& sql) {
  absl::StatusOr<std::string> answer = shard.Query(sql + " FORMAT TSV");
  EXPECT_TRUE(answer.ok()) << answer.status();
  return answer.ok() ? std::stoll(*answer) : -1;
}

// Every event of `span` has one row on `shard`, and every chunk a marker.
void ExpectEachChunkStoredOnce(const clickhouse::HttpClient& shard,
                               const testing::PreparedSpan& span) {
  EXPECT_EQ(
      CountOn(shard, "SELECT count() FROM events_local WHERE run = 'mirror'"),
      span.event_count);
  EXPECT_EQ(
      CountOn(shard,
              "SELECT count() FROM events_stored_local WHERE run = 'mirror'"),
      static_cast<int64_t>(span.chunks.size()));
}

// A shard that does not answer keeps the mirror's rows held, not lost; once
// it answers they are stored once each, a slice at a time.
TEST_F(ClickHouseStoreTest, EventsRowsAShardRefusedAreHeldAndStoredOnce) {
  ASSERT_TRUE(Open());  // the schema
  const testing::PreparedSpan span = testing::PrepareSpan(file_, "mirror", 300);
  clickhouse::HttpClient shard(ShardAddresses()[1], "store_test",
                               absl::Seconds(30));
  // Each chunk a slice of its own; the mirror's thread tries too, as soon as
  // rows are held, and fails alike while the shard is down.
  clickhouse::EventsMirror mirror(
      &shard, {.interval = absl::Hours(1), .flush_bytes = 1});
  cluster_->Kill(1);
  AddChunks(span, mirror);
  EXPECT_TRUE(absl::IsUnavailable(mirror.Flush()));
  EXPECT_EQ(mirror.chunks_stored(), 0);
  ASSERT_TRUE(cluster_->Restart(1).ok());
  ASSERT_TRUE(mirror.Flush().ok());
  EXPECT_EQ(mirror.chunks_stored(), static_cast<int64_t>(span.chunks.size()));
  EXPECT_EQ(mirror.chunks_dropped(), 0);
  ASSERT_TRUE(mirror.Flush().ok());  // nothing held: nothing twice
  ExpectEachChunkStoredOnce(shard, span);
}

// Rows stored whose markers the shard refused: the next flush stores only
// their markers (not the rows again), then the chunks held behind them.
TEST_F(ClickHouseStoreTest,
       EventsRowsWhoseMarkersFailedAreMarkedNotStoredTwice) {
  ASSERT_TRUE(Open());  // the schema
  const testing::PreparedSpan span = testing::PrepareSpan(file_, "mirror", 300);
  ASSERT_GE(span.chunks.size(), 3u);
  clickhouse::HttpClient shard(ShardAddresses()[1], "store_test",
                               absl::Seconds(30));
  clickhouse::EventsMirror mirror(
      &shard, {.interval = absl::Hours(1), .flush_bytes = 1});
  mirror.HoldForTesting(true);  // only the flushes below
  ASSERT_TRUE(
      shard.Query("RENAME TABLE events_stored_local TO events_stored_away")
          .ok());
  AddChunks(span, mirror);
  // The first slice's rows go in, its markers do not; the rest stay held.
  EXPECT_FALSE(mirror.Flush().ok());
  EXPECT_EQ(mirror.chunks_stored(), 0);
  const int64_t first_rows = span.chunks[0].events().kind_size();
  EXPECT_EQ(CountOn(shard,
                    "SELECT count() FROM events_local WHERE run = "
                    "'mirror'"),
            first_rows);
  ASSERT_TRUE(
      shard.Query("RENAME TABLE events_stored_away TO events_stored_local")
          .ok());
  ASSERT_TRUE(mirror.Flush().ok());
  // The first chunk was counted stored by neither flush: its rows went in
  // before, only its marker now.
  EXPECT_EQ(mirror.chunks_stored(),
            static_cast<int64_t>(span.chunks.size()) - 1);
  EXPECT_EQ(mirror.chunks_dropped(), 0);
  ExpectEachChunkStoredOnce(shard, span);
}

// A replica that died between a flush's rows and their markers left rows
// without markers: the repair gives them markers, and no second copy.
TEST_F(ClickHouseStoreTest, RowsWhoseMarkersWereLostAreMarkedNotMadeAgain) {
  const testing::PreparedSpan span =
      testing::PrepareSpan(file_, "unmarked", 300);
  std::unique_ptr<ClickHouseStore> store = Open();
  ASSERT_TRUE(store);
  ASSERT_NO_FATAL_FAILURE(StoreWhole(*store, span));
  ASSERT_TRUE(store->FlushEventRows().ok());
  ASSERT_NO_FATAL_FAILURE(
      QueryEveryShard("TRUNCATE TABLE store_test.events_stored_local"));
  absl::StatusOr<int64_t> repaired =
      store->RepairEventRows(absl::ZeroDuration());
  ASSERT_TRUE(repaired.ok()) << repaired.status();
  EXPECT_EQ(*repaired, static_cast<int64_t>(span.chunks.size()));
  absl::StatusOr<std::vector<int64_t>> per_shard =
      store->EventsPerShard("unmarked");
  ASSERT_TRUE(per_shard.ok()) << per_shard.status();
  EXPECT_EQ((*per_shard)[0] + (*per_shard)[1], span.event_count);
  absl::StatusOr<int64_t> again = store->RepairEventRows(absl::ZeroDuration());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*again, 0);
}

// A database from before `events_stored` has every chunk's rows and no
// markers: opening it marks them, so the repair makes none again.
TEST_F(ClickHouseStoreTest, ADatabaseFromBeforeTheMarkersIsMarkedNotRepaired) {
  const testing::PreparedSpan span = testing::PrepareSpan(file_, "old", 300);
  {
    std::unique_ptr<ClickHouseStore> store = Open();
    ASSERT_TRUE(store);
    ASSERT_NO_FATAL_FAILURE(StoreWhole(*store, span));
  }  // stopped: its rows are stored
  for (const char* table : {"events_stored", "events_stored_local"}) {
    ASSERT_NO_FATAL_FAILURE(
        QueryEveryShard(base::StrCat("DROP TABLE store_test.", table)));
  }
  std::unique_ptr<ClickHouseStore> store = Open();
  ASSERT_TRUE(store);
  absl::StatusOr<int64_t> repaired =
      store->RepairEventRows(absl::ZeroDuration());
  ASSERT_TRUE(repaired.ok()) << repaired.status();
  EXPECT_EQ(*repaired, 0);
  absl::StatusOr<std::vector<int64_t>> per_shard = store->EventsPerShard("old");
  ASSERT_TRUE(per_shard.ok()) << per_shard.status();
  EXPECT_EQ((*per_shard)[0] + (*per_shard)[1], span.event_count);
}

// Issue 50: spans that open at once share one state lookup (one query pair
// through the servers, not one each), and each still learns its own state: a
// closed span, a span of a worker with another span, new spans.
TEST_F(ClickHouseStoreTest, SpansOpeningAtOnceShareOneStateLookup) {
  std::unique_ptr<ClickHouseStore> store = Open();
  ASSERT_TRUE(store);
  const testing::PreparedSpan stored =
      testing::PrepareSpan(file_, "burst", 1000);
  ASSERT_NO_FATAL_FAILURE(StoreWhole(*store, stored));
  ASSERT_GE(stored.header.worker().world_size(), 4);
  std::vector<v1::UploadHeader> headers(4, stored.header);
  headers[1].set_span(stored.header.span() + ".second");  // the same worker
  for (int rank = 2; rank < 4; ++rank) {
    headers[rank].mutable_worker()->set_rank(rank);
    headers[rank].set_span(stored.header.span() + ".rank" +
                           std::to_string(rank));
  }
  const int64_t queries_before = store->span_state_lookup().queries();
  store->HoldSpanLookupsForTesting(true);
  std::vector<absl::StatusOr<Store::OpenedSpan>> opened(headers.size());
  {
    std::vector<std::jthread> threads;
    for (size_t i = 0; i < headers.size(); ++i)
      threads.emplace_back([&, i] { opened[i] = store->OpenSpan(headers[i]); });
    ASSERT_TRUE(test_support::WaitUntil(
        [&] { return store->span_state_lookup().waiting() == headers.size(); },
        absl::Seconds(30)));
    store->HoldSpanLookupsForTesting(false);
  }
  EXPECT_EQ(store->span_state_lookup().queries() - queries_before, 1);
  ASSERT_TRUE(opened[0].ok()) << opened[0].status();
  EXPECT_TRUE(opened[0]->closed);
  EXPECT_EQ(opened[0]->durable_sequence,
            static_cast<int64_t>(stored.chunks.size()) - 1);
  for (size_t i = 1; i < headers.size(); ++i) {
    ASSERT_TRUE(opened[i].ok()) << i << ": " << opened[i].status();
    EXPECT_FALSE(opened[i]->closed) << i;
    EXPECT_EQ(opened[i]->durable_sequence, -1) << i;
    ASSERT_NE(opened[i]->lease, nullptr) << i;
  }
  // The new rank's span stores and closes as any other.
  for (const v1::TraceChunk& chunk : stored.chunks)
    ASSERT_TRUE(store->AppendChunk(*opened[2]->lease, chunk).ok());
  v1::SpanEnd end;
  end.set_chunk_count(stored.chunks.size());
  end.set_event_count(stored.event_count);
  ASSERT_TRUE(store->CloseSpan(*opened[2]->lease, end).ok());
  absl::StatusOr<v1::StoredRun> run =
      store->GetRun("burst", RunDetail::kSummary);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->event_count(), 2 * stored.event_count);
}

// Issue 50: the workers of one run share most strings, and each is stored
// about once per replica, not once per worker; still every event's name and
// input shapes have their row.
TEST_F(ClickHouseStoreTest,
       EachNameOfARunIsStoredOnceAndEveryEventHasItsNames) {
  std::unique_ptr<ClickHouseStore> store = Open();
  ASSERT_TRUE(store);
  const fs::path folder = fs::path(file_).parent_path();
  int64_t events = 0;
  for (const char* name : {"worker0_step_12.1694128201545.pt.trace.json.gz",
                           "worker1_step_12.1694128201556.pt.trace.json.gz",
                           "worker2_step_12.1694128201554.pt.trace.json.gz"}) {
    const testing::PreparedSpan span =
        testing::PrepareSpan((folder / name).string(), "names", 1000);
    events += span.event_count;
    ASSERT_NO_FATAL_FAILURE(StoreWhole(*store, span));
  }
  ASSERT_TRUE(store->FlushEventRows().ok());
  clickhouse::HttpClient any(ShardAddresses()[0], "store_test",
                             absl::Seconds(30));
  const auto count = [&](const std::string& sql) -> int64_t {
    absl::StatusOr<std::string> answer = any.Query(sql + " FORMAT TSV");
    EXPECT_TRUE(answer.ok()) << answer.status();
    return answer.ok() ? std::stoll(*answer) : -1;
  };
  EXPECT_EQ(count("SELECT count() FROM events WHERE run = 'names'"), events);
  const int64_t rows = count("SELECT count() FROM names WHERE run = 'names'");
  const int64_t distinct =
      count("SELECT uniqExact(name_id) FROM names WHERE run = 'names'");
  EXPECT_EQ(rows, distinct);  // one stream at a time: no duplicate
  // Far fewer than a copy per worker: the three share most strings.
  const int64_t per_worker = count(
      "SELECT sum(n) FROM (SELECT uniqExact(id) AS n FROM (SELECT worker, "
      "arrayJoin([name_id, input_shapes_id]) AS id FROM events WHERE run = "
      "'names') GROUP BY worker)");
  EXPECT_LT(rows, per_worker * 2 / 3);
  for (const char* column : {"name_id", "input_shapes_id"}) {
    EXPECT_EQ(count(base::StrCat(
                  "SELECT count() FROM events WHERE run = 'names' AND ", column,
                  " GLOBAL NOT IN (SELECT name_id FROM names WHERE run = "
                  "'names')")),
              0)
        << column << " without a names row";
  }
}

// Regression for #42 (the local store's are LocalKeptDigestTest in
// store_integrity_test.cc): a kept digest row is used only whole and only for
// the run, key and version it was made for. A damaged one is never served: it
// is made again (the same bytes as the first time, so a diff reads the same
// numbers) and kept in a row that outranks it, which the next replica reads.
class ClickHouseKeptDigestTest : public ClickHouseStoreTest {
 protected:
  void SetUp() override {
    ClickHouseStoreTest::SetUp();
    if (IsSkipped()) return;
    store_ = Open();
    ASSERT_TRUE(store_);
    StoreSpan("kept", file_);
    StoreSpan("other", (fs::path(file_).parent_path() /
                        "worker1_step_12.1694128201556.pt.trace.json.gz")
                           .string());
    request_.set_run("kept");
    RunDigests digests(store_.get(), 1 << 30);
    made_ = Get(digests, request_);
    ASSERT_EQ(made_.ranks_size(), 1);
  }

  void StoreSpan(const std::string& run, const std::string& file) {
    StoreWhole(*store_, testing::PrepareSpan(file, run, 2000));
  }

  static v1::RunDigest Get(RunDigests& digests,
                           const v1::GetRunDigestRequest& request) {
    absl::StatusOr<std::shared_ptr<const v1::RunDigest>> digest =
        digests.Get(request);
    EXPECT_TRUE(digest.ok()) << digest.status();
    return digest.ok() ? **digest : v1::RunDigest();
  }

  // A kept row as the digests table holds it, and the shard holding it.
  struct KeptRow {
    std::string key, version;
    int64_t made_ms = 0;
    std::string digest;
    std::string shard, database;
  };
  KeptRow Row(const std::string& run) {
    KeptRow row;
    absl::StatusOr<clickhouse::ClickHouseUrl> url =
        clickhouse::ParseClickHouseUrl(options_.clickhouse_url);
    EXPECT_TRUE(url.ok()) << url.status();
    if (!url.ok()) return row;
    for (const std::string& shard : url->shards) {
      clickhouse::HttpClient client(shard, url->database, absl::Seconds(30));
      absl::StatusOr<std::string> answer = client.Query(
          "SELECT digest_key, version, made_ms, digest FROM digests_local "
          "WHERE run = '" +
          run + "' FORMAT RowBinary");
      EXPECT_TRUE(answer.ok()) << answer.status();
      if (!answer.ok() || answer->empty()) continue;
      clickhouse::RowBinaryReader reader(*answer);
      row.key = reader.String();
      row.version = reader.String();
      row.made_ms = reader.Number<int64_t>();
      row.digest = reader.String();
      EXPECT_TRUE(reader.ok() && reader.done()) << "one row of " << run;
      row.shard = shard;
      row.database = url->database;
    }
    EXPECT_FALSE(row.shard.empty()) << "no kept row of " << run;
    return row;
  }

  // Writes what `damage` makes of the kept row of run "kept" as a newer row
  // of its run, key and version, and expects a replica to make the digest
  // again rather than serve it, and the next replica to read what it kept.
  void ExpectMadeAgainAfter(
      const std::function<std::string(const std::string&)>& damage) {
    const KeptRow kept = Row("kept");
    std::string rows;
    clickhouse::RowBinaryWriter writer(rows);
    writer.String("kept");
    writer.String(kept.key);
    writer.String(kept.version);
    writer.Number<int64_t>(kept.made_ms + 1);
    writer.String(damage(kept.digest));
    clickhouse::HttpClient shard(kept.shard, kept.database, absl::Seconds(30));
    ASSERT_TRUE(
        shard.Insert("INSERT INTO digests_local FORMAT RowBinary", rows).ok());

    RunDigests replica(store_.get(), 1 << 30);
    EXPECT_EQ(Get(replica, request_).SerializeAsString(),
              made_.SerializeAsString());
    EXPECT_EQ(replica.stats().damaged, 1);
    EXPECT_EQ(replica.stats().builds, 1);
    EXPECT_EQ(replica.stats().loaded, 0);
    RunDigests next(store_.get(), 1 << 30);
    EXPECT_EQ(Get(next, request_).SerializeAsString(),
              made_.SerializeAsString());
    EXPECT_EQ(next.stats().loaded, 1);
    EXPECT_EQ(next.stats().damaged, 0);
  }

  std::unique_ptr<ClickHouseStore> store_;
  v1::GetRunDigestRequest request_;
  v1::RunDigest made_;
};

TEST_F(ClickHouseKeptDigestTest, DigestCutAtAFieldBoundaryIsMadeAgain) {
  // The digest without its kernels and every field after them is a prefix of
  // its bytes, and the row's bytes end with them: cut there, it parses.
  ASSERT_GT(made_.kernels_size(), 0);
  const size_t cut = test_support::BytesFromKernelsOn(made_);
  ExpectMadeAgainAfter([&](const std::string& bytes) {
    EXPECT_GT(bytes.size(), cut);
    return bytes.substr(0, bytes.size() - cut);
  });
}

TEST_F(ClickHouseKeptDigestTest, EmptyDigestRowIsMadeAgain) {
  ExpectMadeAgainAfter([](const std::string&) { return std::string(); });
}

TEST_F(ClickHouseKeptDigestTest, AnotherRunsDigestCopiedInIsMadeAgain) {
  v1::GetRunDigestRequest other;
  other.set_run("other");
  RunDigests digests(store_.get(), 1 << 30);
  ASSERT_NE(Get(digests, other).SerializeAsString(), made_.SerializeAsString());
  const std::string copied = Row("other").digest;
  ExpectMadeAgainAfter([&](const std::string&) { return std::string(copied); });
}

TEST_F(ClickHouseKeptDigestTest, DigestWithAFlippedByteIsMadeAgain) {
  ExpectMadeAgainAfter([](std::string bytes) {
    // An operator name's first letter: the digest still parses.
    const size_t at = bytes.find("aten::");
    EXPECT_NE(at, std::string::npos);
    if (at != std::string::npos) bytes[at] ^= 0x01;  // 'a' -> '`'
    return bytes;
  });
}

}  // namespace
}  // namespace profdiff::aggregator
