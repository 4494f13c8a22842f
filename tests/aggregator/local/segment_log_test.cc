#include "aggregator/local/segment_log.h"

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/env.h"
#include "tests/support/fault_injection_env.h"
#include "tests/support/mem_env.h"
#include "tests/support/test_dir.h"

namespace profdiff::aggregator {
namespace {

namespace fs = std::filesystem;

class SegmentLogTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test_support::FreshTestDir("segments"); }

  // Appends records "payload-0" .. "payload-<n-1>" with event counts 10, 11,
  // ...
  void Write(int n, uint64_t max_segment_bytes = 64 << 20) {
    absl::StatusOr<SpanScan> scan = ScanAndRepairSpanSegments(env_, dir_);
    ASSERT_TRUE(scan.ok()) << scan.status();
    absl::StatusOr<SegmentWriter> writer =
        SegmentWriter::Open(env_, dir_, *scan, max_segment_bytes);
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (int64_t k = scan->last_sequence + 1; k < scan->last_sequence + 1 + n;
         ++k) {
      ASSERT_TRUE(
          writer->Append(k, 10 + k, "payload-" + std::to_string(k)).ok());
    }
  }

  std::vector<std::string> ReadAll(absl::Status* status = nullptr) {
    std::vector<std::string> payloads;
    const std::unique_ptr<BatchCursor> cursor = OpenSpanSegments(env_, dir_);
    for (;;) {
      absl::StatusOr<std::optional<std::string_view>> next = cursor->Next();
      if (!next.ok() || !next->has_value()) {
        if (status != nullptr) *status = next.status();
        return payloads;
      }
      payloads.emplace_back(**next);
    }
  }

  base::Env& env_ = *base::Env::Default();
  fs::path dir_;
};

TEST_F(SegmentLogTest, RecordsReadBackInOrderAcrossSegments) {
  // A 1-byte bound rolls a new segment after every record.
  Write(3, /*max_segment_bytes=*/1);
  Write(2, /*max_segment_bytes=*/1);
  EXPECT_TRUE(fs::exists(dir_ / "seg-000004.log"));
  EXPECT_THAT(ReadAll(),
              ::testing::ElementsAre("payload-0", "payload-1", "payload-2",
                                     "payload-3", "payload-4"));
  absl::StatusOr<SpanScan> scan = ScanAndRepairSpanSegments(env_, dir_);
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(scan->last_sequence, 4);
  EXPECT_EQ(scan->event_count, 10 + 11 + 12 + 13 + 14);
  EXPECT_TRUE(scan->problem.empty());
}

TEST_F(SegmentLogTest, TornTailIsCutAndAppendsContinueAfterIt) {
  Write(3);
  const fs::path segment = dir_ / "seg-000000.log";
  fs::resize_file(segment,
                  fs::file_size(segment) - 3);  // the last record loses 3 bytes
  absl::StatusOr<SpanScan> scan = ScanAndRepairSpanSegments(env_, dir_);
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(scan->last_sequence, 1);
  EXPECT_THAT(scan->problem, ::testing::HasSubstr("payload cut short"));
  Write(2);  // sequences 2 and 3, after the cut
  EXPECT_THAT(ReadAll(), ::testing::ElementsAre("payload-0", "payload-1",
                                                "payload-2", "payload-3"));
}

TEST_F(SegmentLogTest, FlippedByteIsQuarantinedAndTheRecordsAfterItAreKept) {
  Write(3, /*max_segment_bytes=*/1);  // one record per segment
  {
    std::fstream file(dir_ / "seg-000001.log",
                      std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(40);  // inside the payload of record 1
    file.put('#');
  }
  absl::Status read;
  ReadAll(&read);
  EXPECT_EQ(read.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(
      read.message(),
      ::testing::HasSubstr("seg-000001.log: byte 0: record CRC mismatch"));
  absl::StatusOr<SpanScan> scan = ScanAndRepairSpanSegments(env_, dir_);
  ASSERT_TRUE(scan.ok()) << scan.status();
  EXPECT_EQ(scan->last_sequence, 0);
  EXPECT_EQ(scan->records_after_gap, 1);  // record 2 is intact and kept on disk
  EXPECT_TRUE(fs::exists(dir_ / "seg-000002.log"));
  ASSERT_EQ(scan->quarantined.size(), 1u);
  EXPECT_TRUE(fs::exists(scan->quarantined[0]));
  EXPECT_GT(fs::file_size(scan->quarantined[0]), 0u);
  EXPECT_FALSE(scan->problem.empty());
  // A rescan finds the same (the repair is idempotent and quarantines nothing
  // more).
  absl::StatusOr<SpanScan> again = ScanAndRepairSpanSegments(env_, dir_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->last_sequence, 0);
  EXPECT_EQ(again->records_after_gap, 1);
  // The agent sends chunks 1 and 2 again: the writer cuts what followed the gap
  // first.
  Write(2, /*max_segment_bytes=*/1);
  EXPECT_THAT(ReadAll(),
              ::testing::ElementsAre("payload-0", "payload-1", "payload-2"));
}

TEST_F(SegmentLogTest, DamagedFirstHeaderKeepsEveryLaterRecord) {
  Write(4);  // one segment
  {
    std::fstream file(dir_ / "seg-000000.log",
                      std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(0);  // the first record's magic
    file.put('X');
  }
  absl::StatusOr<SpanScan> scan = ScanAndRepairSpanSegments(env_, dir_);
  ASSERT_TRUE(scan.ok()) << scan.status();
  EXPECT_EQ(scan->last_sequence, -1);
  EXPECT_EQ(scan->records_after_gap, 3);
  EXPECT_EQ(scan->quarantined.size(), 1u);
}

// The segment log on the fault-injecting Env over memory: crashes at every sync
// point and a full disk, in-process.
class SegmentLogFaultTest : public ::testing::Test {
 protected:
  static constexpr char kDir[] = "/span";
  static constexpr int kRecords = 5;

  void SetUp() override { Reset(); }

  void Reset() {
    mem_ = std::make_unique<test_support::MemEnv>();
    env_ = std::make_unique<test_support::FaultInjectionEnv>(mem_.get());
    ASSERT_TRUE(env_->CreateDir(kDir).ok());
    ASSERT_TRUE(env_->SyncDir("/").ok());
  }

  // Appends records from the end of the valid prefix up to kRecords, each in
  // a segment of its own; stops at the first error. Returns the last sequence
  // acknowledged (-1: none).
  int64_t AppendUntilError() {
    absl::StatusOr<SpanScan> scan = ScanAndRepairSpanSegments(*env_, kDir);
    if (!scan.ok()) return -1;
    int64_t acknowledged = scan->last_sequence;
    absl::StatusOr<SegmentWriter> writer =
        SegmentWriter::Open(*env_, kDir, *scan, /*max_segment_bytes=*/1);
    if (!writer.ok()) return acknowledged;
    for (int64_t k = acknowledged + 1; k < kRecords; ++k) {
      if (!writer->Append(k, 1, "payload-" + std::to_string(k)).ok()) break;
      acknowledged = k;
    }
    return acknowledged;
  }

  std::vector<std::string> ReadAll() {
    std::vector<std::string> payloads;
    const std::unique_ptr<BatchCursor> cursor = OpenSpanSegments(*env_, kDir);
    for (;;) {
      absl::StatusOr<std::optional<std::string_view>> next = cursor->Next();
      EXPECT_TRUE(next.ok()) << next.status();
      if (!next.ok() || !next->has_value()) return payloads;
      payloads.emplace_back(**next);
    }
  }

  std::unique_ptr<test_support::MemEnv> mem_;
  std::unique_ptr<test_support::FaultInjectionEnv> env_;
};

TEST_F(SegmentLogFaultTest, ACrashAtAnySyncPointLosesNoAcknowledgedRecord) {
  // The syncs of the appends only, not of Reset()'s folder.
  const int before = env_->syncs();
  ASSERT_EQ(AppendUntilError(), kRecords - 1);
  const int syncs = env_->syncs() - before;
  // A record and a roll each sync: at least one per record.
  ASSERT_GE(syncs, kRecords);
  for (int stop = 0; stop <= syncs; ++stop) {
    SCOPED_TRACE("stopped after " + std::to_string(stop) + " syncs");
    Reset();
    env_->StopAfterSyncs(stop);
    const int64_t acknowledged = AppendUntilError();
    // Every sync point is reached; the last round runs whole.
    EXPECT_EQ(env_->stopped(), stop < syncs);
    ASSERT_TRUE(env_->Crash().ok());
    absl::StatusOr<SpanScan> scan = ScanAndRepairSpanSegments(*env_, kDir);
    ASSERT_TRUE(scan.ok()) << scan.status();
    EXPECT_GE(scan->last_sequence, acknowledged);
    EXPECT_EQ(scan->problem, "");  // unsynced bytes vanish whole: no damage
    // The writer goes on after what survived, and every record reads back.
    EXPECT_EQ(AppendUntilError(), kRecords - 1);
    EXPECT_THAT(ReadAll(),
                ::testing::ElementsAre("payload-0", "payload-1", "payload-2",
                                       "payload-3", "payload-4"));
  }
}

TEST_F(SegmentLogFaultTest, AFullDiskFailsTheAppendNamingTheSegment) {
  absl::StatusOr<SegmentWriter> writer =
      SegmentWriter::Open(*env_, kDir, SpanScan{}, 64 << 20);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(writer->Append(0, 1, "payload-0").ok());
  const uint64_t size = *env_->FileSize("/span/seg-000000.log");
  env_->SetDiskFull(true);
  const absl::StatusOr<uint64_t> refused = writer->Append(1, 1, "payload-1");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(refused.status().message(),
            "/span/seg-000000.log: write: No space left on device");
  EXPECT_EQ(*env_->FileSize("/span/seg-000000.log"), size);
  env_->SetDiskFull(false);
  ASSERT_TRUE(writer->Append(1, 1, "payload-1").ok());
  EXPECT_THAT(ReadAll(), ::testing::ElementsAre("payload-0", "payload-1"));
}

TEST_F(SegmentLogFaultTest, ASyncThatFailsCutsTheRecordBack) {
  absl::StatusOr<SegmentWriter> writer =
      SegmentWriter::Open(*env_, kDir, SpanScan{}, 64 << 20);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(writer->Append(0, 1, "payload-0").ok());
  const uint64_t size = *env_->FileSize("/span/seg-000000.log");
  // ext4's delayed allocation: the write is taken, the sync finds no space.
  env_->Fail(test_support::FaultKind::kSync, ENOSPC);
  const absl::StatusOr<uint64_t> refused = writer->Append(1, 1, "payload-1");
  EXPECT_EQ(refused.status().message(),
            "/span/seg-000000.log: fdatasync: No space left on device");
  EXPECT_EQ(*env_->FileSize("/span/seg-000000.log"), size);
  env_->ClearFaults();
  ASSERT_TRUE(writer->Append(1, 1, "payload-1").ok());
  EXPECT_THAT(ReadAll(), ::testing::ElementsAre("payload-0", "payload-1"));
}

// Regression guard for the quarantine order (segment_log.h): a power cut at any
// sync point of a repair leaves every damaged byte in the segment or in
// quarantine/, and the next scan finishes the repair.
TEST_F(SegmentLogFaultTest, ACrashDuringARepairLosesNoDamagedByte) {
  const std::string segment = "/span/seg-000001.log";
  const std::string quarantined = "/span/quarantine/seg-000001.log.0.bad";
  std::string damaged;
  // kRecords records, one a segment; record 1 gets a flipped payload byte.
  auto damage = [&] {
    Reset();
    ASSERT_EQ(AppendUntilError(), kRecords - 1);
    ASSERT_TRUE(mem_->ReadFileInto(segment, 1 << 20, damaged).ok());
    damaged[40] ^= 0x20;  // byte 40: inside the payload (the header is 32)
    absl::StatusOr<std::unique_ptr<base::WritableFile>> file =
        mem_->NewWritableFile(segment);  // beside the fault Env: durable
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE((*file)->Append(damaged).ok());
  };
  damage();
  const int before = env_->syncs();
  ASSERT_TRUE(ScanAndRepairSpanSegments(*env_, kDir).ok());
  const int syncs = env_->syncs() - before;
  // The quarantine folder, the quarantined bytes, the segment.
  ASSERT_GE(syncs, 3);
  for (int stop = 0; stop <= syncs; ++stop) {
    SCOPED_TRACE("stopped after " + std::to_string(stop) + " syncs");
    damage();
    env_->StopAfterSyncs(stop);
    ScanAndRepairSpanSegments(*env_, kDir).IgnoreError();
    EXPECT_EQ(env_->stopped(), stop < syncs);
    ASSERT_TRUE(env_->Crash().ok());
    std::string in_segment;
    std::string in_quarantine;
    ASSERT_TRUE(mem_->ReadFileInto(segment, 1 << 20, in_segment).ok());
    mem_->ReadFileInto(quarantined, 1 << 20, in_quarantine).IgnoreError();
    EXPECT_TRUE(in_segment == damaged || in_quarantine == damaged);
    absl::StatusOr<SpanScan> scan = ScanAndRepairSpanSegments(*env_, kDir);
    ASSERT_TRUE(scan.ok()) << scan.status();
    EXPECT_EQ(scan->last_sequence, 0);
    EXPECT_EQ(scan->records_after_gap, kRecords - 2);
    ASSERT_TRUE(mem_->ReadFileInto(quarantined, 1 << 20, in_quarantine).ok());
    EXPECT_EQ(in_quarantine, damaged);
    EXPECT_EQ(*mem_->FileSize(segment), 0u);
  }
}

}  // namespace
}  // namespace profdiff::aggregator
