// Appending one Trace to another (trace_append.cc): strings re-interned in the
// appended trace's id order, argument rows shifted, times and ids shifted, and
// pids/tids written as names pointing at the same text afterwards.
#include "trace/trace_append.h"

#include <vector>

#include <gtest/gtest.h>

#include "tests/trace/kineto_read.h"

namespace profdiff::trace {
namespace {

TEST(TraceAppendTest, StringsAreInternedInTheAppendedTracesIdOrder) {
  Trace into = MustRead(
      R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "x", "ts": 1, "dur": 1}]})");
  const Trace from = MustRead(R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "b", "ts": 1, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "a", "ts": 2, "dur": 1}]})");
  AppendTrace(into, from, {});
  ASSERT_EQ(into.events.size(), 3u);
  std::vector<std::string_view> names;
  for (StringId id : into.events.name) names.push_back(into.strings.Get(id));
  EXPECT_EQ(names, (std::vector<std::string_view>{"x", "b", "a"}));
  EXPECT_EQ(into.strings.Get(into.events.category[1]), "kernel");
  // "cpu_op" was known: the appended event uses the existing id.
  EXPECT_EQ(into.events.category[2], into.events.category[0]);
  // Ids new to `into` follow `from`'s numbering: "kernel" before "b", "a".
  EXPECT_LT(into.events.category[1].value, into.events.name[1].value);
  EXPECT_LT(into.events.name[1].value, into.events.name[2].value);
}

TEST(TraceAppendTest, ArgumentRowsFollowAndStayWithTheirEvents) {
  Trace into = MustRead(R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 1,
     "args": {"registers per thread": 8, "grid": [1, 1, 1]}}]})");
  const Trace from = MustRead(R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "k2", "ts": 1, "dur": 1,
     "args": {"registers per thread": 32, "block": [64, 1, 1]}},
    {"ph": "X", "cat": "cpu_op", "name": "op", "ts": 2, "dur": 1}]})");
  AppendTrace(into, from, {});
  EXPECT_EQ(into.events.arg_begin, (std::vector<uint32_t>{0, 2, 4, 4}));
  EXPECT_EQ(into.IntArg(0, ArgKey::kRegistersPerThread), 8);
  EXPECT_EQ(into.IntArg(1, ArgKey::kRegistersPerThread), 32);
  EXPECT_EQ(into.strings.Get(*into.StringArg(1, ArgKey::kBlock)), "[64,1,1]");
  EXPECT_EQ(into.StringArg(1, ArgKey::kGrid), std::nullopt);
  EXPECT_EQ(into.IntArg(2, ArgKey::kRegistersPerThread), std::nullopt);
}

TEST(TraceAppendTest, TimesAndIdsAreShiftedButNoIdStaysNone) {
  Trace into = MustRead(R"({"traceEvents": []})");
  const Trace from = MustRead(R"({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "launch", "ts": 1, "dur": 2,
     "args": {"correlation": 4, "External id": 9}},
    {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 4, "ts": 1},
    {"ph": "X", "cat": "cpu_op", "name": "op", "ts": 2, "dur": 1}]})");
  AppendTrace(into, from, {.time_ns = 500, .id_offset = 100});
  ASSERT_EQ(into.events.size(), 3u);
  EXPECT_EQ(into.events.start_ns, (std::vector<int64_t>{1500, 1500, 2500}));
  EXPECT_EQ(into.events.duration_ns[0], 2000);
  EXPECT_EQ(into.events.correlation[0], 104);
  EXPECT_EQ(into.events.external_id[0], 109);
  EXPECT_EQ(into.events.flow_id[1], 104);
  EXPECT_EQ(into.events.correlation[2], kNoId);
  EXPECT_EQ(into.events.external_id[2], kNoId);
}

TEST(TraceAppendTest, CountersAddUp) {
  Trace into = MustRead(R"({"traceEvents": [
    {"ph": "B", "name": "a", "ts": 1}, {"ph": "X", "cat": "odd", "name": "b", "ts": 1, "dur": 1}]})");
  const Trace from = MustRead(R"({"traceEvents": [
    {"ph": "E", "ts": 1}, {"ph": "E", "ts": 2}, {"ph": "X", "cat": "odd", "name": "b", "ts": 1, "dur": 1}]})");
  AppendTrace(into, from, {});
  EXPECT_EQ(into.counters.unsupported_phase_events, 3);
  EXPECT_EQ(into.counters.unknown_category_events, 2);
}

// "CPU functions" is string 1 of the legacy trace: pid -2 names it.
constexpr std::string_view kNamedPid = R"([
  {"name": "aten::relu", "ph": "X", "ts": 10, "dur": 4, "tid": 1, "pid": "CPU functions"}])";

TEST(TraceAppendTest, NegativePidsAreNamesWhenNoRowsAreGiven) {
  Trace into = MustRead(R"([{"name": "first", "ph": "X", "ts": 1, "dur": 1},
                             {"name": "second", "ph": "X", "ts": 1, "dur": 1}])");
  const Trace from = MustRead(kNamedPid);
  ASSERT_LT(from.events.pid[0], 0);
  AppendTrace(into, from, {});
  const int64_t pid = into.events.pid[2];
  ASSERT_LT(pid, 0);
  EXPECT_NE(pid, from.events.pid[0]);
  EXPECT_EQ(into.strings.Get(StringId{static_cast<uint32_t>(-1 - pid)}),
            "CPU functions");
}

TEST(TraceAppendTest, OnlyTheGivenRowsAndColumnsAreNames) {
  Trace into = MustRead(R"([{"name": "first", "ph": "X", "ts": 1, "dur": 1},
                             {"name": "second", "ph": "X", "ts": 1, "dur": 1}])");
  Trace from = MustRead(kNamedPid);
  from.events.tid[0] = -2;  // a real negative tid, not a name
  const std::vector<StringIdRow> rows = {
      {.row = 0, .columns = StringIdRow::kPid}};
  AppendTrace(into, from, {.string_id_rows = &rows});
  const int64_t pid = into.events.pid[2];
  EXPECT_EQ(into.strings.Get(StringId{static_cast<uint32_t>(-1 - pid)}),
            "CPU functions");
  EXPECT_EQ(into.events.tid[2], -2);
}

}  // namespace
}  // namespace profdiff::trace
