// Nothing acknowledged is lost and no upload can take the aggregator down: a
// file's identity is its content, one process per data folder, damaged bytes
// quarantined and the span sent again, ranks counted once, world sizes bounded
// and agreed, streams capped and ended when idle. Contract tests (TEST_P) run
// against both backends; LocalStoreTest only where files are on disk.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "aggregator/local/local_store.h"
#include "aggregator/run_digests.h"
#include "profdiff/v1/collector.grpc.pb.h"
#include "tests/aggregator/store_fixture.h"
#include "tests/aggregator/upload_test_client.h"
#include "tests/support/digest_cut.h"
#include "tests/support/trace_comparison.h"
#include "tests/support/traces_dir.h"
#include "tests/support/wait_until.h"
#include "trace/kineto_reader.h"

namespace profdiff::aggregator {
namespace {

namespace fs = std::filesystem;
using store_test::CollectorTest;
using store_test::LocalStoreTest;
using ::testing::HasSubstr;
using testing::PreparedSpan;
using testing::PrepareSpan;
using testing::UploadSpan;
using testing::UploadStream;

// `span` under another span id, content fingerprint, rank/name or world size.
PreparedSpan With(PreparedSpan span, const std::string& id,
                  const std::string& fingerprint) {
  span.header.set_span(id);
  span.header.set_content_fingerprint(fingerprint);
  return span;
}

TEST_P(CollectorTest,
       OtherContentUnderAStoredSpanIdIsRefusedNeverAcknowledged) {
  const PreparedSpan a =
      With(PrepareSpan(files_[0], "same_name", 2000), "trace.json.gz", "aaaa");
  PreparedSpan b =
      With(PrepareSpan(files_[1], "same_name", 2000), "trace.json.gz", "bbbb");
  *b.header.mutable_worker() =
      a.header.worker();  // same run, rank and worker: one span id
  ASSERT_TRUE(UploadSpan(channel_, a).ok());
  const grpc::Status refused = UploadSpan(channel_, b);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_THAT(refused.error_message(), HasSubstr("fingerprint aaaa"));
  EXPECT_THAT(refused.error_message(), HasSubstr("bbbb"));
  // The same content again is the same span: closed already.
  EXPECT_TRUE(UploadSpan(channel_, a).ok());
  ExpectExportHolds("same_name", a.header.worker().rank(),
                    a.trace);  // a's events only, nothing of b's
}

TEST_P(CollectorTest, RankGivenTwiceKeepsTheRunOpenAndWarns) {
  PreparedSpan first = PrepareSpan(files_[0], "twice", 2000);
  PreparedSpan second = PrepareSpan(files_[0], "twice", 2000);
  for (PreparedSpan* span : {&first, &second}) {
    span->header.mutable_worker()->set_world_size(2);
    span->header.mutable_worker()->set_rank(0);
  }
  second.header.mutable_worker()->set_worker_name("copy_of_rank0");
  ASSERT_TRUE(UploadSpan(channel_, first).ok());
  ASSERT_TRUE(UploadSpan(channel_, second).ok());
  const v1::StoredRun run = GetRun("twice");
  EXPECT_EQ(run.worker_count(), 2);
  EXPECT_EQ(run.closed_worker_count(), 1);  // distinct ranks
  EXPECT_NE(run.state(), v1::RUN_STATE_COMPLETE);
  ASSERT_EQ(run.warnings_size(), 1);
  EXPECT_THAT(run.warnings(0), HasSubstr("rank 0 is stored by 2 workers"));
}

// Regression for #42: a trace file rewritten in place with other content
// became a second span of its worker (the agent names a span
// <file>-<fingerprint>), counted with the first: twice the events, no
// warning. Only the newest version of a file counts, in the worker's profile,
// digest and export, and the run says so, also after a restart.
TEST_P(CollectorTest, FileRewrittenWithOtherContentCountsOnlyItsNewestVersion) {
  const PreparedSpan older = With(PrepareSpan(files_[0], "rewritten", 2000),
                                  "w.pt.trace.json-aaaa", "aaaa");
  PreparedSpan newer = With(PrepareSpan(files_[1], "rewritten", 2000),
                            "w.pt.trace.json-bbbb", "bbbb");
  // Rank 1's events written over rank 0's file: same worker, host and path.
  *newer.header.mutable_worker() = older.header.worker();
  ASSERT_NE(newer.event_count, older.event_count);
  ASSERT_TRUE(UploadSpan(channel_, older).ok());
  ASSERT_TRUE(UploadSpan(channel_, newer).ok());
  // What the worker's profile must be: the newer version alone.
  PreparedSpan alone = PrepareSpan(files_[1], "alone", 2000);
  alone.header = newer.header;
  alone.header.set_run("alone");
  ASSERT_TRUE(UploadSpan(channel_, alone).ok());
  const v1::WorkerInfo& worker = older.header.worker();
  const std::string warning =
      "worker " + std::to_string(worker.rank()) + "." + worker.worker_name() +
      ": trace file \"" + worker.source_path() +
      "\" on host \"test-host\" was rewritten with other content; span "
      "w.pt.trace.json-bbbb (newer) replaces span w.pt.trace.json-aaaa, which "
      "is left out of the worker's profile, digest and export";
  for (const bool restarted : {false, true}) {
    SCOPED_TRACE(restarted ? "after a restart" : "before a restart");
    if (restarted) RestartServer();
    const v1::StoredRun run = GetRun("rewritten");
    EXPECT_THAT(run.warnings(), ::testing::ElementsAre(warning));
    ASSERT_EQ(run.workers_size(), 1);
    EXPECT_EQ(run.workers(0).spans_size(), 2);  // both stored and listed
    v1::RunProfile rewritten, expected;
    ASSERT_TRUE(GetProfile("rewritten", rewritten).ok());
    ASSERT_TRUE(GetProfile("alone", expected).ok());
    ASSERT_EQ(rewritten.workers_size(), 1);
    EXPECT_EQ(rewritten.workers(0).event_count(), newer.event_count);
    EXPECT_EQ(rewritten.workers(0).operators().size(),
              expected.workers(0).operators().size());
    for (int i = 0; i < rewritten.workers(0).operators_size() &&
                    i < expected.workers(0).operators_size();
         ++i) {
      EXPECT_EQ(rewritten.workers(0).operators(i).SerializeAsString(),
                expected.workers(0).operators(i).SerializeAsString());
    }
    ExpectExportHolds("rewritten", worker.rank(), newer.trace);
    v1::GetRunDigestRequest request;
    request.set_run("rewritten");
    absl::StatusOr<std::shared_ptr<const v1::RunDigest>> digest =
        server_->digests().Get(request);
    request.set_run("alone");
    absl::StatusOr<std::shared_ptr<const v1::RunDigest>> digest_alone =
        server_->digests().Get(request);
    ASSERT_TRUE(digest.ok()) << digest.status();
    ASSERT_TRUE(digest_alone.ok()) << digest_alone.status();
    EXPECT_EQ((*digest)->slots(), (*digest_alone)->slots());
    EXPECT_EQ((*digest)->operators_size(), (*digest_alone)->operators_size());
    EXPECT_EQ((*digest)->overview().SerializeAsString(),
              (*digest_alone)->overview().SerializeAsString());
  }
}

TEST_P(CollectorTest, ConflictingWorldSizeIsRefusedNamingBothValues) {
  const PreparedSpan rank0 = PrepareSpan(files_[0], "worlds", 2000);
  ASSERT_TRUE(rank0.header.worker().distributed_info_present());
  ASSERT_TRUE(UploadSpan(channel_, rank0).ok());
  PreparedSpan other = PrepareSpan(files_[1], "worlds", 2000);
  other.header.mutable_worker()->set_world_size(16);
  const grpc::Status refused = UploadSpan(channel_, other);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(refused.error_message(), HasSubstr("world_size 16"));
  EXPECT_THAT(refused.error_message(), HasSubstr("say 8"));
  EXPECT_EQ(GetRun("worlds").world_size(), 8);
}

TEST_P(CollectorTest, WorldSizePastTheLimitIsInvalidArgument) {
  PreparedSpan span = PrepareSpan(files_[0], "huge_world", 2000);
  span.header.mutable_worker()->set_world_size(1000000000);
  const grpc::Status refused = UploadSpan(channel_, span);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(), HasSubstr("1048576"));
}

TEST_P(CollectorTest, NewlineInAgentIdIsInvalidArgument) {
  PreparedSpan span = PrepareSpan(files_[0], "agent_id", 2000);
  span.header.set_agent_id("agent\nforged log line");
  EXPECT_EQ(UploadSpan(channel_, span).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_P(CollectorTest, HugeRunIdIsNotEchoedWhole) {
  PreparedSpan span = PrepareSpan(files_[0], "x", 2000);
  span.header.set_run(std::string(1 << 20, 'r'));
  const grpc::Status refused = UploadSpan(channel_, span);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_LT(refused.error_message().size(), 4096u);
}

TEST_P(CollectorTest, ExportComesInPiecesOfAboutAMebibyte) {
  const fs::path big =
      test_support::TracesDir() /
      "tracelens/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz";
  if (!fs::exists(big)) GTEST_SKIP() << "needs " << big;
  const PreparedSpan span = PrepareSpan(big.string(), "pieces", 20000);
  ASSERT_TRUE(UploadSpan(channel_, span).ok());
  grpc::ClientContext context;
  rpc::SetTimeout(context, absl::Seconds(60));
  v1::ExportTraceRequest request;
  request.set_run("pieces");
  request.mutable_worker()->set_rank(span.header.worker().rank());
  auto reader = run_store_->ExportTrace(&context, request);
  v1::ExportTraceChunk piece;
  std::string json;
  size_t pieces = 0;
  size_t largest = 0;
  while (reader->Read(&piece)) {
    ++pieces;
    largest = std::max(largest, piece.json().size());
    json += piece.json();
  }
  ASSERT_TRUE(reader->Finish().ok());
  EXPECT_GT(pieces, 1u) << json.size() << " bytes";
  EXPECT_LT(largest, size_t{2} << 20);
  absl::StatusOr<trace::Trace> exported =
      trace::ReadKinetoTrace(json, "export.json");
  ASSERT_TRUE(exported.ok()) << exported.status();
  test_support::ExpectSameEvents(span.trace, *exported);
}

TEST_P(CollectorTest, IdleStreamIsEndedAndReleasesItsSpan) {
  AggregatorOptions options;
  options.collector.stream_idle_timeout = absl::Milliseconds(300);
  RestartWith(options);
  const PreparedSpan span = PrepareSpan(files_[0], "idle", 2000);
  UploadStream idle(channel_);
  v1::UploadAck ack;
  ASSERT_TRUE(idle.WriteHeader(span.header));
  ASSERT_TRUE(idle.ReadAck(ack));
  EXPECT_FALSE(idle.ReadAck(ack));  // ended by the server once idle
  const grpc::Status ended = idle.Finish();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_THAT(ended.error_message(), HasSubstr("stream-idle-timeout"));
  EXPECT_TRUE(
      UploadSpan(channel_, span).ok());  // the span's lease was released
}

TEST_P(CollectorTest, StreamsPastTheTotalLimitAreUnavailable) {
  AggregatorOptions options;
  options.collector.max_streams = 2;
  RestartWith(options);
  std::vector<std::unique_ptr<UploadStream>> held;
  for (int i = 0; i < 2; ++i) {
    held.push_back(std::make_unique<UploadStream>(channel_));
    PreparedSpan span = With(PrepareSpan(files_[0], "total", 2000),
                             "s" + std::to_string(i), "");
    v1::UploadAck ack;
    ASSERT_TRUE(held.back()->WriteHeader(span.header));
    ASSERT_TRUE(held.back()->ReadAck(ack));
  }
  const grpc::Status refused =
      UploadSpan(channel_, PrepareSpan(files_[1], "total", 2000));
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(refused.error_message(), HasSubstr("--max-streams"));
  held.clear();  // cancelled: their places come back
  const PreparedSpan span = PrepareSpan(files_[1], "total", 2000);
  grpc::Status status;
  EXPECT_TRUE(test_support::WaitUntil(
      [&] {
        status = UploadSpan(channel_, span);
        return status.ok();
      },
      absl::Seconds(10)))
      << status.error_message();
}

TEST_F(LocalStoreTest, SecondStoreOnTheDataDirIsRefusedNamingTheHolder) {
  StoreOptions options;
  options.data_dir = data_dir_;
  absl::StatusOr<std::unique_ptr<LocalStore>> second =
      LocalStore::Open(options);
  ASSERT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), HasSubstr(std::to_string(getpid())));
  server_.reset();  // released with the store
  EXPECT_TRUE(LocalStore::Open(options).ok());
}

// The one segment file of `run`'s span.
fs::path SegmentOf(const fs::path& data_dir, const std::string& run) {
  for (const auto& entry :
       fs::recursive_directory_iterator(data_dir / "runs" / run)) {
    if (entry.path().filename() == "seg-000000.log") return entry.path();
  }
  return {};
}

TEST_F(LocalStoreTest, DamagedByteIsQuarantinedListedAndTheResentSpanIsWhole) {
  PreparedSpan span = PrepareSpan(files_[0], "flipped", 500);
  span.header.set_agent_id("agent-a");
  ASSERT_TRUE(UploadSpan(channel_, span).ok());
  server_.reset();
  const fs::path segment = SegmentOf(data_dir_, "flipped");
  ASSERT_FALSE(segment.empty());
  {
    std::fstream file(segment, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(fs::file_size(segment) / 2));
    file.put('\x5a');
  }
  StartServer();
  const v1::StoredRun damaged = GetRun("flipped");
  EXPECT_EQ(damaged.workers(0).spans(0).state(), v1::SPAN_STATE_INCOMPLETE);
  EXPECT_NE(damaged.state(), v1::RUN_STATE_COMPLETE);
  EXPECT_TRUE(fs::exists(segment.parent_path() / "quarantine"));

  // The agent that sent it is told to send it again.
  auto collector = v1::Collector::NewStub(channel_);
  grpc::ClientContext context;
  v1::ListDamagedSpansRequest request;
  request.set_agent_id("agent-a");
  v1::ListDamagedSpansResponse listed;
  ASSERT_TRUE(collector->ListDamagedSpans(&context, request, &listed).ok());
  ASSERT_EQ(listed.spans_size(), 1);
  EXPECT_EQ(listed.spans(0).span(), span.header.span());
  EXPECT_EQ(listed.spans(0).run(), "flipped");

  span.header.set_resume(true);
  ASSERT_TRUE(UploadSpan(channel_, span).ok());
  EXPECT_EQ(GetRun("flipped").workers(0).spans(0).state(),
            v1::SPAN_STATE_CLOSED);
  ExpectExportHolds("flipped", span.header.worker().rank(), span.trace);
}

TEST_F(LocalStoreTest, DamagedSpanManifestIsRebuiltByTheResentSpan) {
  PreparedSpan span = PrepareSpan(files_[0], "manifest", 500);
  ASSERT_TRUE(UploadSpan(channel_, span).ok());
  server_.reset();
  const fs::path manifest =
      SegmentOf(data_dir_, "manifest").parent_path() / "span.pb";
  std::ofstream(manifest, std::ios::trunc) << "not a span manifest";
  StartServer();
  EXPECT_EQ(GetRun("manifest").workers(0).spans(0).state(),
            v1::SPAN_STATE_INCOMPLETE);
  span.header.set_resume(true);
  ASSERT_TRUE(UploadSpan(channel_, span).ok());
  EXPECT_EQ(GetRun("manifest").workers(0).spans(0).state(),
            v1::SPAN_STATE_CLOSED);
  ExpectExportHolds("manifest", span.header.worker().rank(), span.trace);
}

TEST_F(LocalStoreTest, TempFilesAreRemovedAndUpdatedSurvivesARestart) {
  ASSERT_TRUE(UploadSpan(channel_, PrepareSpan(files_[0], "kept", 2000)).ok());
  const int64_t updated = GetRun("kept").updated_unix_ms();
  EXPECT_GT(updated, 0);
  server_.reset();
  const fs::path leftover = data_dir_ / "runs" / "kept" / "run.pb.tmp.12345";
  std::ofstream(leftover) << "half written";
  StartServer();
  EXPECT_FALSE(fs::exists(leftover));
  EXPECT_EQ(GetRun("kept").updated_unix_ms(), updated);
}

// Issue 32: the local store keeps the digests it made beside the run, so a
// restarted aggregator answers a thousand-rank diff without reading every
// profile again; a damaged kept digest is made again, never served.
TEST_F(LocalStoreTest, DigestsSurviveARestartAndADamagedOneIsMadeAgain) {
  ASSERT_TRUE(UploadSpan(channel_, PrepareSpan(files_[0], "kept", 2000)).ok());
  v1::GetRunDigestRequest request;
  request.set_run("kept");
  absl::StatusOr<std::shared_ptr<const v1::RunDigest>> made =
      server_->digests().Get(request);
  ASSERT_TRUE(made.ok()) << made.status();
  EXPECT_EQ(server_->digests().stats().builds, 1);

  server_.reset();
  StartServer();
  absl::StatusOr<std::shared_ptr<const v1::RunDigest>> read =
      server_->digests().Get(request);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(server_->digests().stats().builds, 0);
  EXPECT_EQ(server_->digests().stats().loaded, 1);
  EXPECT_EQ((*read)->SerializeAsString(), (*made)->SerializeAsString());

  server_.reset();
  int kept_files = 0;
  for (const auto& file :
       fs::directory_iterator(data_dir_ / "runs" / "kept" / "digests")) {
    std::ofstream(file.path(), std::ios::trunc) << "not a digest";
    ++kept_files;
  }
  EXPECT_EQ(kept_files, 1);
  StartServer();
  absl::StatusOr<std::shared_ptr<const v1::RunDigest>> again =
      server_->digests().Get(request);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(server_->digests().stats().builds, 1);
  EXPECT_EQ((*again)->SerializeAsString(), (*made)->SerializeAsString());
}

// Regression for #42: a kept digest is used only whole and only for the run,
// key and version it was made for. A damaged one is never served: it is made
// again from the profiles (the same bytes as the first time, so a diff reads
// the same numbers), kept in its place, and read from there after a restart.
class LocalKeptDigestTest : public LocalStoreTest {
 protected:
  void SetUp() override {
    LocalStoreTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_TRUE(
        UploadSpan(channel_, PrepareSpan(files_[0], "kept", 2000)).ok());
    ASSERT_TRUE(
        UploadSpan(channel_, PrepareSpan(files_[1], "other", 2000)).ok());
    request_.set_run("kept");
    made_ = Get(request_);
    ASSERT_EQ(made_.ranks_size(), 1);
  }

  v1::RunDigest Get(const v1::GetRunDigestRequest& request) {
    absl::StatusOr<std::shared_ptr<const v1::RunDigest>> digest =
        server_->digests().Get(request);
    EXPECT_TRUE(digest.ok()) << digest.status();
    return digest.ok() ? **digest : v1::RunDigest();
  }

  // The one kept digest file of `run`.
  fs::path KeptFile(const std::string& run) {
    std::vector<fs::path> files;
    for (const auto& file :
         fs::directory_iterator(data_dir_ / "runs" / run / "digests"))
      files.push_back(file.path());
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? fs::path() : files.front();
  }

  static std::string Bytes(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void Write(const fs::path& file, const std::string& bytes) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  }

  // Stops the server, lets `damage` change the kept file of run "kept", and
  // expects the restarted server to make the digest again rather than serve
  // what the file holds.
  void ExpectMadeAgainAfter(
      const std::function<void(const fs::path&)>& damage) {
    const fs::path kept = KeptFile("kept");
    server_.reset();
    damage(kept);
    StartServer();
    const v1::RunDigest again = Get(request_);
    EXPECT_EQ(again.SerializeAsString(), made_.SerializeAsString());
    RunDigestsStats stats = server_->digests().stats();
    EXPECT_EQ(stats.damaged, 1);
    EXPECT_EQ(stats.builds, 1);
    EXPECT_EQ(stats.loaded, 0);
    // Kept again in its place, whole: the next start reads it.
    server_.reset();
    StartServer();
    EXPECT_EQ(Get(request_).SerializeAsString(), made_.SerializeAsString());
    stats = server_->digests().stats();
    EXPECT_EQ(stats.loaded, 1);
    EXPECT_EQ(stats.damaged, 0);
    EXPECT_EQ(stats.builds, 0);
  }

  v1::GetRunDigestRequest request_;
  v1::RunDigest made_;
};

TEST_F(LocalKeptDigestTest, DigestCutAtAFieldBoundaryIsMadeAgain) {
  // The digest without its kernels and every field after them is a prefix of
  // its bytes (fields are written in number order), and the file ends with
  // them: cut there, it parses, with 0 kernels.
  ASSERT_GT(made_.kernels_size(), 0);
  const size_t cut = test_support::BytesFromKernelsOn(made_);
  ExpectMadeAgainAfter([&](const fs::path& kept) {
    const std::string bytes = Bytes(kept);
    ASSERT_GT(bytes.size(), cut);
    Write(kept, bytes.substr(0, bytes.size() - cut));
  });
}

TEST_F(LocalKeptDigestTest, EmptyDigestFileIsMadeAgain) {
  ExpectMadeAgainAfter([](const fs::path& kept) { Write(kept, ""); });
}

TEST_F(LocalKeptDigestTest, AnotherRunsDigestCopiedInIsMadeAgain) {
  v1::GetRunDigestRequest other;
  other.set_run("other");
  ASSERT_NE(Get(other).SerializeAsString(), made_.SerializeAsString());
  const fs::path copied = KeptFile("other");
  ExpectMadeAgainAfter(
      [&](const fs::path& kept) { Write(kept, Bytes(copied)); });
}

TEST_F(LocalKeptDigestTest, DigestWithAFlippedByteIsMadeAgain) {
  ExpectMadeAgainAfter([](const fs::path& kept) {
    std::string bytes = Bytes(kept);
    // An operator name's first letter: the digest still parses.
    const size_t at = bytes.find("aten::");
    ASSERT_NE(at, std::string::npos);
    bytes[at] ^= 0x01;  // 'a' -> '`'
    Write(kept, bytes);
  });
}

}  // namespace
}  // namespace profdiff::aggregator
