// A fingerprint of a Trace's content (trace_fingerprint.cc): the same for the
// same events however the file was written or compressed, different when an
// event, string or the worker's metadata differs.
#include "trace/trace_fingerprint.h"

#include <absl/strings/str_format.h>
#include <gtest/gtest.h>

#include "tests/trace/kineto_read.h"

namespace profdiff::trace {
namespace {

TEST(TraceFingerprintTest, SameEventsWrittenDifferentlyGiveTheSameFingerprint) {
  const Trace compact = MustRead(
      R"({"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":2,"pid":1,"tid":1}]})");
  const Trace spaced = MustRead(R"({
    "traceEvents": [ {"tid": 1, "pid": 1, "dur": 2.000, "ts": 1, "name": "a", "ph": "X"} ]
  })");
  EXPECT_EQ(TraceFingerprint(compact), TraceFingerprint(spaced));
}

TEST(TraceFingerprintTest, WhereTheTraceCameFromDoesNotCount) {
  Trace a = MustRead(kModernTrace);
  Trace b = MustRead(kModernTrace);
  b.metadata.source = "elsewhere/trace.json.gz";
  b.metadata.source_format = SourceFormat::kCupti;
  EXPECT_EQ(TraceFingerprint(a), TraceFingerprint(b));
}

TEST(TraceFingerprintTest, AnyColumnStringOrWorkerFieldChangesIt) {
  const Trace base = MustRead(kModernTrace);
  const uint64_t fingerprint = TraceFingerprint(base);
  auto changed = [&](auto change) {
    Trace t = MustRead(kModernTrace);
    change(t);
    return TraceFingerprint(t) != fingerprint;
  };
  EXPECT_TRUE(changed([](Trace& t) { t.events.duration_ns[2] += 1; }));
  EXPECT_TRUE(changed([](Trace& t) { t.events.python_id[7] = 13; }));
  EXPECT_TRUE(changed([](Trace& t) { t.args.int_value[0] += 1; }));
  EXPECT_TRUE(changed([](Trace& t) { t.args.double_value.back() += 0.5; }));
  EXPECT_TRUE(changed([](Trace& t) { t.strings.Intern("one more"); }));
  EXPECT_TRUE(changed([](Trace& t) { t.metadata.rank = 4; }));
  EXPECT_TRUE(changed([](Trace& t) { t.metadata.world_size = 16; }));
  EXPECT_TRUE(changed([](Trace& t) { t.metadata.base_time_ns += 1; }));
  EXPECT_TRUE(changed([](Trace& t) { t.metadata.backend = "gloo"; }));
  EXPECT_TRUE(changed([](Trace& t) { t.metadata.trace_name = "x"; }));
  EXPECT_TRUE(changed([](Trace& t) { t.metadata.devices[0].name = "A100"; }));
  EXPECT_TRUE(changed([](Trace& t) { t.span_begin.push_back(3); }));
  EXPECT_TRUE(changed([](Trace& t) { t.left_out_frames[0].Add(1, 2); }));
  // Which span frames were left out of counts; a span with none adds nothing.
  Trace first;
  first.left_out_frames = {{}, {}};
  first.left_out_frames[0].Add(1, 2);
  Trace second;
  second.left_out_frames = {{}, {}};
  second.left_out_frames[1].Add(1, 2);
  EXPECT_NE(TraceFingerprint(first), TraceFingerprint(second));
  EXPECT_FALSE(changed([](Trace& t) { t.left_out_frames.emplace_back(); }));
}

TEST(TraceFingerprintTest, EventOrderCounts) {
  const Trace ab = MustRead(R"([{"ph": "X", "name": "a", "ts": 1, "dur": 1},
                                {"ph": "X", "name": "b", "ts": 1, "dur": 1}])");
  const Trace ba = MustRead(R"([{"ph": "X", "name": "b", "ts": 1, "dur": 1},
                                {"ph": "X", "name": "a", "ts": 1, "dur": 1}])");
  EXPECT_NE(TraceFingerprint(ab), TraceFingerprint(ba));
}

TEST(TraceFingerprintTest, HexIsSixteenLowercaseDigitsOfTheFingerprint) {
  const Trace trace = MustRead(kModernTrace);
  const std::string hex = TraceFingerprintHex(trace);
  EXPECT_EQ(hex.size(), 16u);
  EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(hex, absl::StrFormat("%016x", TraceFingerprint(trace)));
}

}  // namespace
}  // namespace profdiff::trace
