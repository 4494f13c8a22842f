// One span in memory (trace.cc): typed arguments found by key on their event
// only, and clearing that keeps the columns' capacity.
#include "trace/trace.h"

#include <gtest/gtest.h>

#include "tests/trace/kineto_read.h"

namespace profdiff::trace {
namespace {

constexpr std::string_view kTwoKernels = R"({"traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "a", "ts": 1, "dur": 2,
   "args": {"grid": [1, 1, 1], "blocks per SM": 0.5, "registers per thread": 16}},
  {"ph": "X", "cat": "kernel", "name": "b", "ts": 4, "dur": 3,
   "args": {"registers per thread": 64}},
  {"ph": "X", "cat": "cpu_op", "name": "c", "ts": 9, "dur": 1}]})";

TEST(TraceTest, ArgumentsAreFoundByKeyOnTheirOwnEventOnly) {
  const Trace trace = MustRead(kTwoKernels);
  ASSERT_EQ(trace.events.size(), 3u);
  EXPECT_EQ(trace.IntArg(0, ArgKey::kRegistersPerThread), 16);
  EXPECT_EQ(trace.IntArg(1, ArgKey::kRegistersPerThread), 64);
  EXPECT_EQ(trace.IntArg(2, ArgKey::kRegistersPerThread), std::nullopt);
  EXPECT_EQ(trace.DoubleArg(0, ArgKey::kBlocksPerSm), 0.5);
  EXPECT_EQ(trace.DoubleArg(1, ArgKey::kBlocksPerSm), std::nullopt);
  ASSERT_TRUE(trace.StringArg(0, ArgKey::kGrid).has_value());
  EXPECT_EQ(trace.strings.Get(*trace.StringArg(0, ArgKey::kGrid)), "[1,1,1]");
  EXPECT_EQ(trace.StringArg(1, ArgKey::kGrid), std::nullopt);
}

TEST(TraceTest, EventEndsAtStartPlusDuration) {
  const Trace trace = MustRead(kTwoKernels);
  EXPECT_EQ(trace.events.end_ns(0), 3000);
  EXPECT_EQ(trace.events.end_ns(1), 7000);
}

TEST(TraceTest, ClearKeepingCapacityEmptiesEverythingButCapacity) {
  Trace trace = MustRead(kModernTrace);
  const size_t event_capacity = trace.events.start_ns.capacity();
  const size_t arg_capacity = trace.args.key.capacity();
  trace.span_begin.push_back(5);
  trace.left_out_frames.back().Add(1, 2);
  trace.left_out_frames.emplace_back();
  trace.ClearKeepingCapacity();
  EXPECT_EQ(trace.events, EventTable{});
  EXPECT_EQ(trace.args, ArgTable{});
  EXPECT_EQ(trace.metadata, TraceMetadata{});
  EXPECT_EQ(trace.counters, ReadCounters{});
  EXPECT_EQ(trace.strings.size(), 1u);
  EXPECT_EQ(trace.span_begin, std::vector<uint32_t>{0});
  EXPECT_TRUE(trace.left_out_frames == std::vector<FrameExtent>{{}});
  EXPECT_EQ(trace.events.start_ns.capacity(), event_capacity);
  EXPECT_EQ(trace.args.key.capacity(), arg_capacity);
}

TEST(TraceTest, ClearTouchesEveryColumnAndKeepsItsCapacity) {
  EventTable table;
  table.ForEachColumn([](auto& column) { column.reserve(100); });
  table.ForEachColumn([](auto& column) { column.emplace_back(); });
  table.arg_begin = {0, 0};
  EXPECT_EQ(table.size(), 1u);
  table.Clear();
  table.ForEachColumn([](const auto& column) { EXPECT_TRUE(column.empty()); });
  EXPECT_TRUE(table.arg_begin.empty());
  EXPECT_GE(table.python_id.capacity(), 100u);
}

TEST(TraceTest, TablesCompareColumnByColumn) {
  const Trace a = MustRead(kTwoKernels);
  Trace b = MustRead(kTwoKernels);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.args, b.args);
  b.events.duration_ns[1] += 1;
  b.args.int_value.back() += 1;
  EXPECT_NE(a.events, b.events);
  EXPECT_NE(a.args, b.args);
}

}  // namespace
}  // namespace profdiff::trace
