#include "aggregator/local/segment_log.h"

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
    absl::StatusOr<SpanScan> scan = ScanAndRepairSpanSegments(dir_);
    ASSERT_TRUE(scan.ok()) << scan.status();
    absl::StatusOr<SegmentWriter> writer =
        SegmentWriter::Open(dir_, *scan, max_segment_bytes);
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (int k = scan->last_sequence + 1; k < scan->last_sequence + 1 + n;
         ++k) {
      ASSERT_TRUE(
          writer->Append(k, 10 + k, "payload-" + std::to_string(k)).ok());
    }
  }

  std::vector<std::string> ReadAll(absl::Status* status = nullptr) {
    std::vector<std::string> payloads;
    const std::unique_ptr<BatchCursor> cursor = OpenSpanSegments(dir_);
    for (;;) {
      absl::StatusOr<std::optional<std::string_view>> next = cursor->Next();
      if (!next.ok() || !next->has_value()) {
        if (status != nullptr) *status = next.status();
        return payloads;
      }
      payloads.emplace_back(**next);
    }
  }

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
  absl::StatusOr<SpanScan> scan = ScanAndRepairSpanSegments(dir_);
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
  absl::StatusOr<SpanScan> scan = ScanAndRepairSpanSegments(dir_);
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
  absl::StatusOr<SpanScan> scan = ScanAndRepairSpanSegments(dir_);
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
  absl::StatusOr<SpanScan> again = ScanAndRepairSpanSegments(dir_);
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
  absl::StatusOr<SpanScan> scan = ScanAndRepairSpanSegments(dir_);
  ASSERT_TRUE(scan.ok()) << scan.status();
  EXPECT_EQ(scan->last_sequence, -1);
  EXPECT_EQ(scan->records_after_gap, 3);
  EXPECT_EQ(scan->quarantined.size(), 1u);
}

}  // namespace
}  // namespace profdiff::aggregator
