// An export made piece by piece is the document the whole-trace writer makes of
// the same spans, byte for byte: the old path (LoadSpans, then
// WriteChromeTrace) is the oracle.
#include "aggregator/store/stored_spans.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/aggregator/upload_test_client.h"
#include "tests/support/traces_dir.h"
#include "trace/chrome_trace_writer.h"

namespace profdiff::aggregator {
namespace {

// A span's chunks held in memory, read back one at a time.
class ChunksCursor final : public BatchCursor {
 public:
  explicit ChunksCursor(std::vector<std::string> batches)
      : batches_(std::move(batches)) {}
  absl::StatusOr<std::optional<std::string_view>> Next() override {
    if (next_ == batches_.size()) return std::nullopt;
    return std::optional<std::string_view>(batches_[next_++]);
  }

 private:
  const std::vector<std::string> batches_;
  size_t next_ = 0;
};

StoredSpan InMemory(const testing::PreparedSpan& prepared) {
  std::vector<std::string> batches;
  for (const v1::TraceChunk& chunk : prepared.chunks)
    batches.push_back(chunk.events().SerializeAsString());
  return {prepared.header.span(), prepared.header.worker(),
          [batches]() -> absl::StatusOr<std::unique_ptr<BatchCursor>> {
            return std::make_unique<ChunksCursor>(batches);
          }};
}

TEST(StoredSpansTest, ExportInPiecesIsTheWholeDocumentByteForByte) {
  const std::filesystem::path dir =
      test_support::TracesDir() / "param/dlrm_kineto";
  const std::filesystem::path first =
      dir / "worker0_step_12.1694128201545.pt.trace.json.gz";
  const std::filesystem::path second =
      dir / "worker1_step_12.1694128201556.pt.trace.json.gz";
  if (!std::filesystem::exists(first) || !std::filesystem::exists(second))
    GTEST_SKIP() << "needs " << dir;
  // Two spans of one worker, so the second is rebased and its ids moved as
  // MergeSpans does.
  const std::vector<StoredSpan> spans = {
      InMemory(testing::PrepareSpan(first.string(), "r", 500)),
      InMemory(testing::PrepareSpan(second.string(), "r", 700))};
  const trace::EventBatchLimits limits;
  absl::StatusOr<trace::Trace> whole = LoadSpans(spans, limits);
  ASSERT_TRUE(whole.ok()) << whole.status();
  std::string expected;
  trace::WriteChromeTrace(*whole, expected);

  for (const size_t piece_bytes : {size_t{1}, size_t{4096}, size_t{1} << 20}) {
    SCOPED_TRACE(piece_bytes);
    const std::unique_ptr<TraceExport> exported = ExportSpans(spans, limits);
    std::string json;
    std::string piece;
    size_t pieces = 0;
    for (;;) {
      absl::StatusOr<bool> more = exported->NextPiece(piece_bytes, piece);
      ASSERT_TRUE(more.ok()) << more.status();
      if (!*more) break;
      json += piece;
      ++pieces;
    }
    EXPECT_EQ(json.size(), expected.size());
    EXPECT_TRUE(json == expected);
    EXPECT_GT(pieces, piece_bytes == 1 ? 1000u : 1u);
  }
}

}  // namespace
}  // namespace profdiff::aggregator
