// Joining a worker's spans into one Trace (span_merge.cc): times rebased onto
// the first span, ids kept apart per span, where each span begins and the
// extent of its frames left out, counters added.
#include "trace/span_merge.h"

#include <utility>
#include <vector>

#include <absl/strings/str_cat.h>
#include <gtest/gtest.h>

#include "tests/trace/kineto_read.h"

namespace profdiff::trace {
namespace {

// A launch and its kernel, correlated; a step without ids; one unknown
// category.
Trace Span(int64_t base_time_ns) {
  return MustRead(absl::StrCat(R"({"baseTimeNanoseconds": )", base_time_ns,
                               R"(, "traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1, "dur": 1,
     "args": {"correlation": 5, "External id": 6}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "ts": 3, "dur": 2, "args": {"correlation": 5}},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 9},
    {"ph": "X", "cat": "weird", "name": "w", "ts": 0, "dur": 1}]})"));
}

TEST(SpanMergeTest, NoSpansGiveAnEmptyTrace) {
  const Trace merged = MergeSpans({});
  EXPECT_EQ(merged.events.size(), 0u);
  EXPECT_EQ(merged.events.arg_begin, std::vector<uint32_t>{0});
  EXPECT_EQ(merged.span_begin, std::vector<uint32_t>{0});
}

TEST(SpanMergeTest, OneSpanIsReturnedAsItIs) {
  std::vector<Trace> spans;
  spans.push_back(Span(1000));
  const Trace merged = MergeSpans(std::move(spans));
  const Trace original = Span(1000);
  EXPECT_EQ(merged.events, original.events);
  EXPECT_EQ(merged.args, original.args);
  EXPECT_EQ(merged.metadata, original.metadata);
  EXPECT_EQ(merged.span_begin, std::vector<uint32_t>{0});
}

TEST(SpanMergeTest, LaterSpansAreRebasedOntoTheFirstBaseTime) {
  std::vector<Trace> spans;
  spans.push_back(Span(1'000'000));
  spans.push_back(Span(3'000'000));
  const Trace merged = MergeSpans(std::move(spans));
  ASSERT_EQ(merged.events.size(), 8u);
  EXPECT_EQ(merged.metadata.base_time_ns, 1'000'000);
  EXPECT_EQ(merged.events.start_ns[1], 3000);
  EXPECT_EQ(merged.events.start_ns[5], 3000 + 2'000'000);
  EXPECT_EQ(merged.events.duration_ns[5], 2000);
  EXPECT_EQ(merged.span_begin, (std::vector<uint32_t>{0, 4}));
}

TEST(SpanMergeTest, IdsOfEachSpanAreOffsetSoTheyNeverLinkAcrossSpans) {
  std::vector<Trace> spans;
  spans.reserve(3);
  for (int k = 0; k < 3; ++k) spans.push_back(Span(0));
  const Trace merged = MergeSpans(std::move(spans));
  ASSERT_EQ(merged.events.size(), 12u);
  EXPECT_EQ(merged.events.correlation[0], 5);
  EXPECT_EQ(merged.events.correlation[4], 5 + (int64_t{1} << 40));
  EXPECT_EQ(merged.events.correlation[9], 5 + (int64_t{2} << 40));
  EXPECT_EQ(merged.events.external_id[4], 6 + (int64_t{1} << 40));
  // A launch still finds its own kernel, and no id is given where none was.
  EXPECT_EQ(merged.events.correlation[4], merged.events.correlation[5]);
  EXPECT_EQ(merged.events.correlation[6], kNoId);
  EXPECT_EQ(merged.events.external_id[5], kNoId);
}

TEST(SpanMergeTest, CountersAndStringsAreShared) {
  std::vector<Trace> spans;
  spans.push_back(Span(0));
  spans.push_back(Span(0));
  const size_t strings = spans[0].strings.size();
  const Trace merged = MergeSpans(std::move(spans));
  EXPECT_EQ(merged.counters.unknown_category_events, 2);
  EXPECT_EQ(merged.strings.size(), strings);
  EXPECT_EQ(merged.events.name[1], merged.events.name[5]);
}

TEST(SpanMergeTest, FramesLeftOutKeepTheirExtentPerSpanRebased) {
  std::vector<Trace> spans(3);
  spans[0].metadata.base_time_ns = 1'000'000;
  spans[0].left_out_frames[0].Add(100, 900);
  spans[1].metadata.base_time_ns = 2'000'000;  // none left out
  spans[2].metadata.base_time_ns = 3'000'000;
  spans[2].left_out_frames[0].Add(50, 60);
  for (Trace& span : spans) span.events.arg_begin = {0};
  const Trace merged = MergeSpans(std::move(spans));
  ASSERT_EQ(merged.left_out_frames.size(), merged.span_begin.size());
  ASSERT_EQ(merged.left_out_frames.size(), 3u);
  EXPECT_EQ(merged.left_out_frames[0].first_start_ns, 100);
  EXPECT_EQ(merged.left_out_frames[0].last_end_ns, 900);
  EXPECT_TRUE(merged.left_out_frames[1].empty());
  EXPECT_EQ(merged.left_out_frames[2].first_start_ns, 2'000'050);
  EXPECT_EQ(merged.left_out_frames[2].last_end_ns, 2'000'060);
}

TEST(SpanMergeTest, ShiftIsTheBaseTimeDifferenceAndTheSpanIdBlock) {
  const AppendShift shift = SpanMergeShift(3, 500, 2000);
  EXPECT_EQ(shift.time_ns, -1500);
  EXPECT_EQ(shift.id_offset, int64_t{3} << 40);
  EXPECT_EQ(shift.string_id_rows, nullptr);
  EXPECT_EQ(SpanMergeShift(0, 7, 7).id_offset, 0);
  EXPECT_EQ(SpanMergeShift(0, 7, 7).time_ns, 0);
}

}  // namespace
}  // namespace profdiff::trace
