// The local store on the Envs of tests/support: crashes at every sync point, a
// full disk and idle deadlines, all in-process (no LD_PRELOAD, no waiting).
// Like LevelDB's db/fault_injection_test.cc.
#include "aggregator/local/local_store.h"

#include <cerrno>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/fault_injection_env.h"
#include "tests/support/mem_env.h"
#include "trace/event_batch.h"
#include "trace/kineto_reader.h"

namespace profdiff::aggregator {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;

constexpr char kDataDir[] = "/data";
constexpr char kRun[] = "r1";
constexpr size_t kChunkEvents = 2;

// A span of worker 0: a small trace of one step cut into chunks of
// kChunkEvents events (7 events: chunks of 2, 2, 2 and 1).
struct TestSpan {
  v1::UploadHeader header;
  std::vector<v1::TraceChunk> chunks;
  int64_t event_count = 0;
};

TestSpan MakeSpan(const std::string& span_id) {
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "pid": 1, "tid": 1, "ts": 10, "dur": 40},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 55, "dur": 10},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 70, "dur": 20},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 91, "dur": 5},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 110, "dur": 20}]})";
  absl::StatusOr<trace::Trace> trace = trace::ReadKinetoTrace(json, span_id);
  EXPECT_TRUE(trace.ok()) << trace.status();
  TestSpan span;
  if (!trace.ok()) return span;
  span.header.set_run(kRun);
  span.header.set_span(span_id);
  span.header.set_agent_id("agent-1");
  v1::WorkerInfo* worker = span.header.mutable_worker();
  worker->set_run(kRun);
  worker->set_worker_name("w0");
  worker->set_rank(0);
  worker->set_world_size(1);
  for (size_t begin = 0; begin < trace->events.size();) {
    v1::TraceChunk& chunk = span.chunks.emplace_back();
    chunk.set_sequence(span.chunks.size() - 1);
    absl::StatusOr<size_t> end = trace::EncodeEventBatchWithin(
        *trace, begin, kChunkEvents, 4 << 20, *chunk.mutable_events());
    EXPECT_TRUE(end.ok()) << end.status();
    if (!end.ok()) break;
    begin = *end;
  }
  span.event_count = static_cast<int64_t>(trace->events.size());
  return span;
}

// What the store acknowledged of one span.
struct Acknowledged {
  int64_t sequence = -1;
  bool closed = false;
};

class LocalStoreFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    spans_ = {MakeSpan("a.pt.trace.json"), MakeSpan("b.pt.trace.json")};
    ASSERT_EQ(spans_[0].chunks.size(), 4u);
    Reset();
  }

  // A fresh, empty disk.
  void Reset() {
    store_.reset();
    mem_ = std::make_unique<test_support::MemEnv>();
    env_ = std::make_unique<test_support::FaultInjectionEnv>(mem_.get());
  }

  absl::Status OpenStore() {
    store_.reset();  // its lock first
    StoreOptions options;
    options.data_dir = kDataDir;
    options.env = env_.get();
    absl::StatusOr<std::unique_ptr<LocalStore>> store =
        LocalStore::Open(options);
    if (!store.ok()) return store.status();
    store_ = *std::move(store);
    return absl::OkStatus();
  }

  // Uploads every span from where the store stands, as an agent does; stops
  // at the first error and returns it. `acknowledged` gets what the store
  // acknowledged.
  absl::Status Upload(std::map<std::string, Acknowledged>& acknowledged) {
    for (const TestSpan& span : spans_) {
      Acknowledged& acked = acknowledged[span.header.span()];
      absl::StatusOr<Store::OpenedSpan> opened = store_->OpenSpan(span.header);
      if (!opened.ok()) return opened.status();
      if (opened->closed) {
        acked.closed = true;
        continue;
      }
      for (size_t k = static_cast<size_t>(opened->durable_sequence + 1);
           k < span.chunks.size(); ++k) {
        absl::StatusOr<int64_t> durable =
            store_->AppendChunk(*opened->lease, span.chunks[k]);
        if (!durable.ok()) return durable.status();
        acked.sequence = *durable;
      }
      v1::SpanEnd end;
      end.set_chunk_count(span.chunks.size());
      end.set_event_count(span.event_count);
      if (absl::Status closed = store_->CloseSpan(*opened->lease, end);
          !closed.ok())
        return closed;
      acked.closed = true;
    }
    return absl::OkStatus();
  }

  v1::StoredRun GetRun() {
    absl::StatusOr<v1::StoredRun> run =
        store_->GetRun(kRun, RunDetail::kWorkers);
    EXPECT_TRUE(run.ok()) << run.status();
    return run.ok() ? *run : v1::StoredRun();
  }

  // Every span is stored whole and served: the run is COMPLETE with every
  // event, nothing is damaged, and its profile and export read back.
  void ExpectWholeAndServed() {
    v1::GetProfileRequest request;
    request.set_run(kRun);
    int profiles = 0;
    const absl::Status visited =
        store_->VisitProfiles(request, [&](const v1::WorkerProfile& profile) {
          ++profiles;
          // Two spans (files) of one worker, two ProfilerSteps each.
          EXPECT_EQ(profile.steps_size(), 2 * 2);
          return absl::OkStatus();
        });
    EXPECT_TRUE(visited.ok()) << visited;
    EXPECT_EQ(profiles, 1);
    // After the read, which stores a profile a full disk kept out.
    const v1::StoredRun run = GetRun();
    EXPECT_EQ(run.state(), v1::RUN_STATE_COMPLETE);
    EXPECT_EQ(run.event_count(), 2 * spans_[0].event_count);
    EXPECT_THAT(run.warnings(), ::testing::IsEmpty());
    absl::StatusOr<v1::ListDamagedSpansResponse> damaged =
        store_->ListDamagedSpans(v1::ListDamagedSpansRequest());
    ASSERT_TRUE(damaged.ok());
    EXPECT_EQ(damaged->spans_size(), 0);
    v1::ExportTraceRequest export_request;
    export_request.set_run(kRun);
    export_request.set_span(spans_[1].header.span());
    absl::StatusOr<std::unique_ptr<TraceExport>> exported =
        store_->ExportTrace(export_request);
    ASSERT_TRUE(exported.ok()) << exported.status();
    std::string json;
    std::string piece;
    for (;;) {
      absl::StatusOr<bool> more = (*exported)->NextPiece(1 << 20, piece);
      ASSERT_TRUE(more.ok()) << more.status();
      json += piece;
      if (!*more) break;
    }
    absl::StatusOr<trace::Trace> read = trace::ReadKinetoTrace(json, "export");
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(static_cast<int64_t>(read->events.size()), spans_[1].event_count);
  }

  std::vector<TestSpan> spans_;
  std::unique_ptr<test_support::MemEnv> mem_;
  std::unique_ptr<test_support::FaultInjectionEnv> env_;
  std::unique_ptr<LocalStore> store_;
};

TEST_F(LocalStoreFaultTest, ACrashAtAnySyncPointLosesNothingAcknowledged) {
  ASSERT_TRUE(OpenStore().ok());
  std::map<std::string, Acknowledged> clean;
  ASSERT_TRUE(Upload(clean).ok());
  // The syncs of the operation under test only, not of the reads below.
  const int syncs = env_->syncs();
  ExpectWholeAndServed();
  // Folders, manifests, 4 chunks, closes and profiles of two spans.
  ASSERT_GE(syncs, 20);
  for (int stop = 0; stop <= syncs; ++stop) {
    SCOPED_TRACE("the power went after " + std::to_string(stop) + " syncs");
    Reset();
    env_->StopAfterSyncs(stop);
    std::map<std::string, Acknowledged> acknowledged;
    if (OpenStore().ok()) Upload(acknowledged).IgnoreError();
    store_.reset();
    // The power did go (every sync point is reached), except in the last
    // round, which runs the whole upload.
    EXPECT_EQ(env_->stopped(), stop < syncs);
    ASSERT_TRUE(env_->Crash().ok());
    // The store opens on what the disk kept, with everything acknowledged.
    const absl::Status reopened = OpenStore();
    ASSERT_TRUE(reopened.ok()) << reopened;
    for (const TestSpan& span : spans_) {
      const Acknowledged& acked = acknowledged[span.header.span()];
      absl::StatusOr<Store::OpenedSpan> opened = store_->OpenSpan(span.header);
      ASSERT_TRUE(opened.ok()) << opened.status();
      if (acked.closed) {
        EXPECT_TRUE(opened->closed) << span.header.span();
      } else {
        EXPECT_GE(opened->durable_sequence, acked.sequence)
            << span.header.span();
      }
    }
    // The agents send the rest: the run is whole, as without the crash.
    std::map<std::string, Acknowledged> resent;
    const absl::Status uploaded = Upload(resent);
    ASSERT_TRUE(uploaded.ok()) << uploaded;
    ExpectWholeAndServed();
  }
}

TEST_F(LocalStoreFaultTest,
       AFullDiskRefusesChunksNamingTheFileAndDamagesNothing) {
  ASSERT_TRUE(OpenStore().ok());
  absl::StatusOr<Store::OpenedSpan> opened = store_->OpenSpan(spans_[0].header);
  ASSERT_TRUE(opened.ok());
  ASSERT_TRUE(store_->AppendChunk(*opened->lease, spans_[0].chunks[0]).ok());
  env_->SetDiskFull(true);
  const absl::StatusOr<int64_t> refused =
      store_->AppendChunk(*opened->lease, spans_[0].chunks[1]);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(refused.status().message(),
            "/data/runs/r1/workers/0.w0/spans/a.pt.trace.json/seg-000000.log: "
            "write: No space left on device");
  // A new span cannot store its manifest either; reads still answer.
  const absl::Status second = store_->OpenSpan(spans_[1].header).status();
  EXPECT_EQ(second.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(second.message()),
              MatchesRegex(".*/spans/b.pt.trace.json/span.pb.tmp.[0-9.]+: "
                           "write: No space left on device"));
  const v1::StoredRun run = GetRun();
  ASSERT_EQ(run.workers_size(), 1);
  EXPECT_EQ(run.workers(0).spans(0).durable_sequence(), 0);
  EXPECT_TRUE(store_->ListRuns(v1::ListRunsRequest()).ok());
  // Space comes back: the agent's retry goes on where it stopped.
  env_->SetDiskFull(false);
  std::map<std::string, Acknowledged> acknowledged;
  opened->lease.reset();
  ASSERT_TRUE(Upload(acknowledged).ok());
  ExpectWholeAndServed();
  // Nothing stored was damaged: a restart finds nothing to repair.
  ASSERT_TRUE(OpenStore().ok());
  EXPECT_THAT(store_->recovery_notes(), ::testing::IsEmpty());
  ExpectWholeAndServed();
}

TEST_F(LocalStoreFaultTest, AProfileThatCannotBeStoredIsBuiltFromTheEvents) {
  ASSERT_TRUE(OpenStore().ok());
  env_->Fail(test_support::FaultKind::kWrite, ENOSPC, "/profile-");
  std::map<std::string, Acknowledged> acknowledged;
  ASSERT_TRUE(Upload(acknowledged).ok());  // the closes succeed regardless
  v1::StoredRun run = GetRun();
  ASSERT_EQ(run.workers_size(), 1);
  EXPECT_FALSE(run.workers(0).profile_ready());
  EXPECT_THAT(
      run.workers(0).profile_problem(),
      MatchesRegex("profile not stored: .*/profile-[0-9]+.pb.tmp.[0-9.]+"
                   ": write: No space left on device; reads build it "
                   "from the stored events"));
  // Reads build it meanwhile, and store it once there is room.
  env_->ClearFaults();
  ExpectWholeAndServed();
  run = GetRun();
  EXPECT_TRUE(run.workers(0).profile_ready());
  EXPECT_EQ(run.workers(0).profile_problem(), "");
}

// The same store on a clock that moves only when the test says so.
using LocalStoreClockTest = LocalStoreFaultTest;

TEST_F(LocalStoreClockTest,
       AnIdleRunTurnsPartialAtTheDeadlineAndARestartWaitsAgain) {
  ASSERT_TRUE(OpenStore().ok());
  absl::StatusOr<Store::OpenedSpan> opened = store_->OpenSpan(spans_[0].header);
  ASSERT_TRUE(opened.ok());
  ASSERT_TRUE(store_->AppendChunk(*opened->lease, spans_[0].chunks[0]).ok());
  opened->lease.reset();  // the agent went away mid-span
  // partial_after is 10 minutes (StoreOptions); the clock is the MemEnv's.
  mem_->clock().Advance(absl::Minutes(10) - absl::Milliseconds(1));
  EXPECT_EQ(GetRun().state(), v1::RUN_STATE_OPEN);
  mem_->clock().Advance(absl::Milliseconds(1));
  EXPECT_EQ(GetRun().state(), v1::RUN_STATE_PARTIAL);
  // After a restart the agent gets the whole timeout again.
  ASSERT_TRUE(OpenStore().ok());
  EXPECT_EQ(GetRun().state(), v1::RUN_STATE_OPEN);
  mem_->clock().Advance(absl::Minutes(10));
  EXPECT_EQ(GetRun().state(), v1::RUN_STATE_PARTIAL);
  // A late chunk makes it OPEN again.
  opened = store_->OpenSpan(spans_[0].header);
  ASSERT_TRUE(opened.ok());
  ASSERT_TRUE(store_->AppendChunk(*opened->lease, spans_[0].chunks[1]).ok());
  EXPECT_EQ(GetRun().state(), v1::RUN_STATE_OPEN);
}

using LocalStoreLockTest = LocalStoreFaultTest;

TEST_F(LocalStoreLockTest, ASecondStoreOnTheFolderIsRefusedNamingTheHolder) {
  ASSERT_TRUE(OpenStore().ok());
  StoreOptions options;
  options.data_dir = kDataDir;
  options.env = env_.get();
  const absl::Status second = LocalStore::Open(options).status();
  EXPECT_EQ(second.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.message(),
              HasSubstr("--data-dir /data is in use by another "
                        "profdiff-aggregator: /data/LOCK: locked by another "
                        "process (pid "));
}

}  // namespace
}  // namespace profdiff::aggregator
