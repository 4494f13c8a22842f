// Reading one file's events in parts, on several threads or one after another
// on one (for gzip, streamed a window at a time, or on two threads while it
// inflates), gives exactly what one pass gives: the same events, string ids,
// arguments, metadata and counters, and for bad input the same error.
#include <filesystem>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/str_cat.h"
#include "tests/support/trace_comparison.h"
#include "tests/support/traces_dir.h"
#include "tests/trace/kineto_read.h"
#include "trace/inflating_part_reader.h"
#include "trace/kineto_reader.h"
#include "trace/kineto_vocabulary.h"

namespace profdiff::trace {
namespace {

namespace fs = std::filesystem;

// Cuts every file over 4 KiB into up to 4 parts, so small test texts take the
// parallel path.
constexpr ReadParallelism kFourParts{.threads = 4, .min_part_bytes = 4 << 10};
// One thread, parts of 4 KiB read in turn.
constexpr ReadParallelism kInTurn{.threads = 1, .in_turn_part_bytes = 4 << 10};
// Two threads: gzip is parsed while it inflates, in windows of 4 KiB.
constexpr ReadParallelism kTwoParts{
    .threads = 2, .min_part_bytes = 4 << 10, .in_turn_part_bytes = 4 << 10};
// The reference: one pass over the whole text.
constexpr ReadParallelism kOnePass{.threads = 1, .in_turn_part_bytes = 0};

// Same ids, not only the same text: a part's strings must be interned in the
// order one pass interns them.
void ExpectIdentical(const Trace& one_pass, const Trace& in_parts) {
  ASSERT_NO_FATAL_FAILURE(test_support::ExpectSameEvents(one_pass, in_parts));
  ASSERT_EQ(one_pass.strings.size(), in_parts.strings.size());
  for (uint32_t k = 0; k < one_pass.strings.size(); ++k) {
    ASSERT_EQ(one_pass.strings.Get(StringId{k}),
              in_parts.strings.Get(StringId{k}))
        << "string id " << k;
  }
  EXPECT_TRUE(one_pass.events == in_parts.events);
  EXPECT_TRUE(one_pass.args == in_parts.args);
  EXPECT_TRUE(one_pass.metadata == in_parts.metadata);
  EXPECT_EQ(one_pass.counters.unknown_category_events,
            in_parts.counters.unknown_category_events);
  EXPECT_EQ(one_pass.counters.unsupported_phase_events,
            in_parts.counters.unsupported_phase_events);
  EXPECT_EQ(one_pass.counters.python_frames_left_out,
            in_parts.counters.python_frames_left_out);
  EXPECT_EQ(one_pass.span_begin, in_parts.span_begin);
  EXPECT_TRUE(one_pass.left_out_frames == in_parts.left_out_frames);
}

// A Kineto-style trace of `events` events, one per line block as Kineto writes
// them, with `tail` spliced in as the text of event number `tail_at` (for bad
// input) and `after` written after the event array.
std::string KinetoText(int events, int tail_at = -1, std::string_view tail = "",
                       std::string_view after = "") {
  std::string text = R"({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100", "numSms": 132}],
  "traceEvents": [)";
  for (int i = 0; i < events; ++i) {
    text += i == 0 ? "\n" : ",\n";
    if (i == tail_at) {
      text += tail;
      continue;
    }
    // Thread names and stream strings appear first in later parts, so their ids
    // must be remapped.
    const std::string tid = i % 7 == 0
                                ? base::StrCat("\"thread ", i / 100, "\"")
                                : std::to_string(i % 3);
    base::StrAppend(&text, "  {\n    \"ph\": \"X\", \"cat\": \"",
                    i % 5 == 0 ? "kernel" : "cpu_op", "\", \"name\": \"op",
                    i / 50, "\", \"pid\": 1, \"tid\": ", tid,
                    ",\n    \"ts\": ", 1000 + i, ".", i % 1000,
                    ", \"dur\": 0.5,\n    \"args\": {\n      \"External id\": ",
                    i, ", \"Input Dims\": [[", i % 11,
                    ", 3], []], \"Sequence number\": ", i % 13, "\n    }\n  }");
  }
  base::StrAppend(&text, "\n  ]", after, "\n}\n");
  return text;
}

// One event whose arguments hold 2,000 objects on lines of their own: every
// "},\n{" in it is a cut in the wrong place.
std::string EventWithObjectsOnLines() {
  std::string big =
      R"(  {"ph": "X", "name": "big", "ts": 1, "dur": 1, "pid": 1, "tid": 1, "args": {"list": [
)";
  for (int i = 0; i < 2000; ++i)
    base::StrAppend(&big, i == 0 ? "" : ",\n", "    {\"k\": ", i, "}");
  big += "\n  ]}}";
  return big;
}

// The legacy profiler's bare event array, 300 events on lines of their own.
std::string LegacyBareArray() {
  std::string text = "[\n";
  for (int i = 0; i < 300; ++i) {
    base::StrAppend(&text, i == 0 ? "" : ",\n",
                    "  {\n    \"ph\": \"X\", \"name\": \"op", i % 17,
                    "\", \"ts\": ", i,
                    ", \"dur\": 1, \"pid\": 1, \"tid\": \"main\"\n  }");
  }
  text += "\n]\n";
  return text;
}

// An event whose pid and tid are given twice, a name and then a number.
std::string IdKeysNameThenNumber() {
  return R"(  {"ph": "X", "cat": "cpu_op", "name": "x", "pid": "host", "pid": 7, "tid": "main", "tid": 8,
     "ts": 5, "dur": 1})";
}

// A flow event whose pid and id are given twice, a number and then a name.
std::string IdKeysNumberThenName() {
  return R"(  {"ph": "s", "cat": "ac2g", "name": "f", "pid": 3, "pid": "late name", "tid": 1, "id": 9,
     "id": "flow name", "ts": 5})";
}

struct TwoReads {
  absl::StatusOr<Trace> one_pass;
  absl::StatusOr<Trace> in_parts;
  size_t parts = 0;
  bool streamed = false;
  bool while_inflating = false;
};

TwoReads ReadBothWays(std::string_view text, ReaderLimits limits = {},
                      ReadParallelism parts = kFourParts) {
  KinetoReader one(limits, kOnePass);
  KinetoReader in_parts(limits, parts);
  TwoReads reads{one.ReadBytes(text, "t.json"),
                 in_parts.ReadBytes(text, "t.json")};
  reads.parts = in_parts.last_read_parts();
  reads.streamed = in_parts.last_read_streamed();
  reads.while_inflating = in_parts.last_read_while_inflating();
  return reads;
}

// The same text gzipped, one pass against a stream in 4 KiB windows (or, with
// kTwoParts, two parts read while it inflates).
TwoReads ReadGzippedBothWays(std::string_view text, ReaderLimits limits = {},
                             ReadParallelism parts = kInTurn) {
  return ReadBothWays(Gzip(text), limits, parts);
}

TEST(ParallelReadTest, EveryRealTraceReadsTheSameInPartsAsInOnePass) {
  const fs::path root = test_support::TracesDir();
  if (!fs::is_directory(root))
    GTEST_SKIP() << "no trace folder at " << root << " (set PROFDIFF_TRACES)";
  KinetoReader one({}, kOnePass);
  KinetoReader four({}, kFourParts);
  // The reader's default on one thread: only files over 2 MiB are cut.
  KinetoReader in_turn;
  // On two threads: gzip of 16 MiB or more is parsed while it inflates.
  KinetoReader two({}, {.threads = 2});
  int files = 0;
  int cut = 0;
  int cut_in_turn = 0;
  int streamed = 0;
  int while_inflating = 0;
  for (const fs::path& path : test_support::RealTraceFiles()) {
    SCOPED_TRACE(path.string());
    absl::StatusOr<Trace> a = one.ReadFile(path.string());
    absl::StatusOr<Trace> b = four.ReadFile(path.string());
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    ASSERT_NO_FATAL_FAILURE(ExpectIdentical(*a, *b));
    ++files;
    if (four.last_read_parts() > 1) ++cut;
    absl::StatusOr<Trace> c = in_turn.ReadFile(path.string());
    ASSERT_TRUE(c.ok()) << c.status();
    if (in_turn.last_read_parts() > 1) {
      ASSERT_NO_FATAL_FAILURE(ExpectIdentical(*a, *c));
      ++cut_in_turn;
      if (in_turn.last_read_streamed()) ++streamed;
    }
    absl::StatusOr<Trace> d = two.ReadFile(path.string());
    ASSERT_TRUE(d.ok()) << d.status();
    if (two.last_read_while_inflating()) {
      ASSERT_NO_FATAL_FAILURE(ExpectIdentical(*a, *d));
      ++while_inflating;
    }
  }
  EXPECT_GE(files, 100);
  // Kineto writes one event per line block: nearly every real file must have
  // been cut.
  EXPECT_GE(cut, files * 3 / 4)
      << cut << " of " << files << " files were read in parts";
  EXPECT_GE(cut_in_turn, 10) << "files read in parts in turn";
  // Every large real trace is gzipped and written by Kineto or HTA's tools.
  EXPECT_GE(streamed, cut_in_turn * 3 / 4)
      << streamed << " of " << cut_in_turn << " files in turn were streamed";
  // The largest traces (xDiT, MTIA, the H200 pair) unzip to over 16 MiB.
  EXPECT_GE(while_inflating, 4) << "files read while inflating";
}

// `full` without its plain Python frames, as a reader asked to leave them out
// must give it (ReaderLimits::keep_python_frames): with their extent, and how
// many there were.
// The entries of `column` whose `keep` is true, in order.
template <typename Column>
void KeepOnly(Column& column, const std::vector<bool>& keep) {
  size_t kept = 0;
  for (size_t i = 0; i < column.size(); ++i) {
    if (keep[i]) column[kept++] = column[i];
  }
  column.resize(kept);
}

Trace WithoutFrames(Trace full, int64_t* frames) {
  EventTable& t = full.events;
  std::vector<bool> keep_event(t.size(), true);
  std::vector<bool> keep_arg(full.args.size(), true);
  std::vector<uint32_t> arg_begin = {0};  // event i's rows: [i], [i + 1]
  *frames = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    const uint32_t rows = t.arg_begin[i + 1] - t.arg_begin[i];
    if (t.phase[i] == EventPhase::kComplete &&
        t.kind[i] == EventKind::kPythonFunction &&
        full.strings.Get(t.category[i]) == "python_function") {
      ++*frames;
      full.left_out_frames.back().Add(t.start_ns[i], t.end_ns(i));
      keep_event[i] = false;
      for (uint32_t r = t.arg_begin[i]; r < t.arg_begin[i + 1]; ++r)
        keep_arg[r] = false;
      continue;
    }
    arg_begin.push_back(arg_begin.back() + rows);
  }
  t.ForEachColumn([&](auto& column) { KeepOnly(column, keep_event); });
  t.arg_begin = std::move(arg_begin);
  KeepOnly(full.args.key, keep_arg);
  KeepOnly(full.args.int_value, keep_arg);
  KeepOnly(full.args.double_value, keep_arg);
  KeepOnly(full.args.string_value, keep_arg);
  return full;
}

// Every real trace with Python frames, read leaving them out in one pass, in
// parts in turn (streamed) and on two threads while it inflates, gives its
// whole read less the frames.
TEST(ParallelReadTest, RealTracesReadWithoutFramesAreTheirWholeReadLessFrames) {
  const fs::path root = test_support::TracesDir();
  if (!fs::is_directory(root))
    GTEST_SKIP() << "no trace folder at " << root << " (set PROFDIFF_TRACES)";
  constexpr ReaderLimits kLeaveOut{.keep_python_frames = false};
  KinetoReader full({}, kOnePass);
  KinetoReader one(kLeaveOut, kOnePass);
  KinetoReader in_turn(kLeaveOut);
  KinetoReader two(kLeaveOut, {.threads = 2});
  int with_frames = 0;
  int streamed = 0;
  int while_inflating = 0;
  for (const fs::path& path : test_support::RealTraceFiles()) {
    SCOPED_TRACE(path.string());
    absl::StatusOr<Trace> whole = full.ReadFile(path.string());
    ASSERT_TRUE(whole.ok()) << whole.status();
    int64_t frames = 0;
    const Trace expected = WithoutFrames(*std::move(whole), &frames);
    if (frames == 0) continue;
    ++with_frames;
    absl::StatusOr<Trace> a = one.ReadFile(path.string());
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_NO_FATAL_FAILURE(test_support::ExpectSameEvents(expected, *a));
    EXPECT_EQ(a->counters.python_frames_left_out, frames);
    EXPECT_TRUE(a->left_out_frames == expected.left_out_frames);
    EXPECT_TRUE(a->metadata == expected.metadata);
    absl::StatusOr<Trace> b = in_turn.ReadFile(path.string());
    ASSERT_TRUE(b.ok()) << b.status();
    ASSERT_NO_FATAL_FAILURE(ExpectIdentical(*a, *b));
    if (in_turn.last_read_streamed()) ++streamed;
    absl::StatusOr<Trace> c = two.ReadFile(path.string());
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_NO_FATAL_FAILURE(ExpectIdentical(*a, *c));
    if (two.last_read_while_inflating()) ++while_inflating;
  }
  EXPECT_GE(with_frames, 20) << "real traces with Python frames";
  EXPECT_GE(streamed, 3) << "of them streamed";
  EXPECT_GE(while_inflating, 2) << "of them read while inflating";
}

TEST(ParallelReadTest, KinetoTextIsCutIntoFourPartsAndKeepsTrailingFields) {
  const TwoReads reads = ReadBothWays(KinetoText(400, -1, "", R"(,
  "traceName": "w.pt.trace.json", "baseTimeNanoseconds": 1700000000000000000,
  "distributedInfo": {"backend": "gloo", "rank": 1, "world_size": 2})"));
  ASSERT_TRUE(reads.one_pass.ok()) << reads.one_pass.status();
  ASSERT_TRUE(reads.in_parts.ok()) << reads.in_parts.status();
  EXPECT_EQ(reads.parts, 4u);
  ExpectIdentical(*reads.one_pass, *reads.in_parts);
  EXPECT_EQ(reads.in_parts->metadata.trace_name, "w.pt.trace.json");
  EXPECT_EQ(reads.in_parts->metadata.rank, 1);
  EXPECT_EQ(reads.in_parts->events.size(), 400u);
}

TEST(ParallelReadTest, LegacyBareArrayIsCut) {
  const std::string text = LegacyBareArray();
  const TwoReads reads = ReadBothWays(text);
  ASSERT_TRUE(reads.in_parts.ok()) << reads.in_parts.status();
  EXPECT_GT(reads.parts, 1u);
  ExpectIdentical(*reads.one_pass, *reads.in_parts);
}

TEST(ParallelReadTest, CutInsideAnEventFallsBackToOnePass) {
  // One huge event whose arguments hold objects on their own lines: the only
  // "},\n{" patterns in the middle of the file are inside it, so every cut is
  // wrong and must be caught.
  const std::string big = EventWithObjectsOnLines();
  const TwoReads reads = ReadBothWays(KinetoText(3, 1, big));
  ASSERT_TRUE(reads.one_pass.ok()) << reads.one_pass.status();
  ASSERT_TRUE(reads.in_parts.ok()) << reads.in_parts.status();
  EXPECT_EQ(reads.parts, 1u);
  ExpectIdentical(*reads.one_pass, *reads.in_parts);
}

// Bad input anywhere gives the error one pass gives, word for word.
TEST(ParallelReadTest, ErrorsInAnyPartAreTheOnePassErrors) {
  const std::string bad_event =
      R"(  {"ph": "X", "cat": "cpu_op", "name": "x", "pid": 1, "tid": 1, "ts": N/A, "dur": 1})";
  const std::string no_dur =
      R"(  {"ph": "X", "cat": "cpu_op", "name": "x", "pid": 1, "tid": 1, "ts": 5})";
  const std::string bad_utf8 =
      "  {\"ph\": \"X\", \"name\": \"\xff\xfe\", \"ts\": 5, \"dur\": 1}";
  const std::string unclosed =
      R"(  {"ph": "X", "name": "x", "ts": 5, "dur": 1)";
  struct Case {
    std::string text;
    ReaderLimits limits;
  };
  std::vector<Case> cases;
  for (int at : {10, 150, 250, 390}) {  // in the first, middle and last parts
    cases.push_back({KinetoText(400, at, bad_event), {}});
    cases.push_back({KinetoText(400, at, no_dur), {}});
    cases.push_back({KinetoText(400, at, bad_utf8), {}});
    cases.push_back({KinetoText(400, at, unclosed), {}});
  }
  cases.push_back({KinetoText(400, -1, "", ", \"traceName\": 5 garbage"), {}});
  cases.push_back({KinetoText(400) + "trailing", {}});
  cases.push_back(
      {KinetoText(400).substr(0, 30000), {}});  // truncated mid-event
  ReaderLimits few_events;
  few_events.max_events = 399;
  cases.push_back({KinetoText(400), few_events});
  ReaderLimits short_strings;
  short_strings.max_string_bytes = 4;
  cases.push_back({KinetoText(400), short_strings});
  struct Way {
    bool gzipped;
    ReadParallelism parts;
  };
  for (const Way& way : {Way{false, kFourParts}, Way{false, kInTurn},
                         Way{true, kInTurn}, Way{true, kTwoParts}}) {
    for (size_t c = 0; c < cases.size(); ++c) {
      SCOPED_TRACE(::testing::Message()
                   << "case " << c << (way.gzipped ? ", gzipped" : "")
                   << ", threads " << way.parts.threads);
      const TwoReads reads =
          way.gzipped
              ? ReadGzippedBothWays(cases[c].text, cases[c].limits, way.parts)
              : ReadBothWays(cases[c].text, cases[c].limits, way.parts);
      ASSERT_FALSE(reads.one_pass.ok());
      EXPECT_EQ(reads.in_parts.status(), reads.one_pass.status());
    }
  }
}

// Found by the fuzzer: a key given twice, a name first and a number second,
// left the number marked as a name, and appending the part read a string id out
// of range.
TEST(ParallelReadTest, RepeatedIdKeysKeepTheLastValue) {
  const std::string twice = IdKeysNameThenNumber();
  const std::string name_last = IdKeysNumberThenName();
  for (const std::string& t :
       {KinetoText(400, 300, twice), KinetoText(400, 320, name_last)}) {
    for (const ReadParallelism& parts : {kFourParts, kInTurn}) {
      const TwoReads reads = ReadBothWays(t, {}, parts);
      ASSERT_TRUE(reads.one_pass.ok()) << reads.one_pass.status();
      ASSERT_TRUE(reads.in_parts.ok()) << reads.in_parts.status();
      EXPECT_GT(reads.parts, 1u);
      ExpectIdentical(*reads.one_pass, *reads.in_parts);
    }
    const TwoReads reads = ReadGzippedBothWays(t);
    ASSERT_TRUE(reads.in_parts.ok()) << reads.in_parts.status();
    EXPECT_TRUE(reads.streamed);
    ExpectIdentical(*reads.one_pass, *reads.in_parts);
    // The names (event 300, 320) fall in the second part, read by the thread
    // that inflates.
    const TwoReads two = ReadGzippedBothWays(t, {}, kTwoParts);
    ASSERT_TRUE(two.in_parts.ok()) << two.in_parts.status();
    EXPECT_TRUE(two.while_inflating);
    ExpectIdentical(*two.one_pass, *two.in_parts);
  }
}

// One pass refuses any event after the max_events-th kept one, even an event it
// would drop; a file exactly at the limit is left to one pass.
TEST(ParallelReadTest, AFileAtMaxEventsGivesTheOnePassAnswer) {
  const std::string dropped =
      R"(  {"ph": "B", "name": "begin", "pid": 1, "tid": 1, "ts": 3})";
  ReaderLimits limits;
  limits.max_events = 399;
  for (const std::string& text :
       {KinetoText(400, 399, dropped), KinetoText(399),
        KinetoText(400, 200, dropped)}) {
    for (const TwoReads& reads :
         {ReadBothWays(text, limits), ReadGzippedBothWays(text, limits),
          ReadGzippedBothWays(text, limits, kTwoParts)}) {
      EXPECT_EQ(reads.in_parts.status(), reads.one_pass.status());
      if (reads.one_pass.ok())
        ExpectIdentical(*reads.one_pass, *reads.in_parts);
    }
  }
}

TEST(ParallelReadTest, OneThreadNeverCutsWithoutInTurnParts) {
  KinetoReader reader(
      {}, {.threads = 1, .min_part_bytes = 1, .in_turn_part_bytes = 0});
  ASSERT_TRUE(reader.ReadBytes(KinetoText(400), "t.json").ok());
  EXPECT_EQ(reader.last_read_parts(), 1u);
}

TEST(ParallelReadTest, OneThreadReadsPartsInTurnAsOnePass) {
  const std::string text = KinetoText(400);
  TwoReads reads = ReadBothWays(text, {}, kInTurn);
  ASSERT_TRUE(reads.one_pass.ok()) << reads.one_pass.status();
  ASSERT_TRUE(reads.in_parts.ok()) << reads.in_parts.status();
  EXPECT_EQ(reads.parts, text.size() / (4 << 10));
  ExpectIdentical(*reads.one_pass, *reads.in_parts);
}

TEST(ParallelReadTest, GzipIsStreamedInWindowsAsOnePass) {
  // The trailing fields come after the array, in the last window; the
  // arguments' raw JSON ("Input Dims") repeats across windows, so the
  // parser's caches of it must outlive the window they were read from.
  const std::string text = KinetoText(400, -1, "", R"(,
  "traceName": "w.pt.trace.json", "baseTimeNanoseconds": 1700000000000000000,
  "distributedInfo": {"backend": "gloo", "rank": 1, "world_size": 2})");
  const TwoReads reads = ReadGzippedBothWays(text);
  ASSERT_TRUE(reads.one_pass.ok()) << reads.one_pass.status();
  ASSERT_TRUE(reads.in_parts.ok()) << reads.in_parts.status();
  EXPECT_TRUE(reads.streamed);
  EXPECT_GE(reads.parts, text.size() / (4 << 10));
  ExpectIdentical(*reads.one_pass, *reads.in_parts);
  EXPECT_EQ(reads.in_parts->metadata.trace_name, "w.pt.trace.json");
  EXPECT_EQ(reads.in_parts->metadata.rank, 1);
}

TEST(ParallelReadTest, GzippedLegacyBareArrayIsStreamed) {
  const std::string text = LegacyBareArray();
  const TwoReads reads = ReadGzippedBothWays(text);
  ASSERT_TRUE(reads.in_parts.ok()) << reads.in_parts.status();
  EXPECT_TRUE(reads.streamed);
  ExpectIdentical(*reads.one_pass, *reads.in_parts);
}

// What a stream cannot prove is read whole: the same trace or the same error.
TEST(ParallelReadTest, WhatAStreamCannotProveIsReadWhole) {
  // An event larger than a window (its arguments on lines of their own, so
  // the only cuts in the middle of the file are wrong ones).
  const std::string big = EventWithObjectsOnLines();
  // The event array on one line: no cut at all.
  std::string one_line = R"({"traceEvents": [)";
  for (int i = 0; i < 500; ++i) {
    base::StrAppend(&one_line, i == 0 ? "" : ", ",
                    R"({"ph": "X", "name": "op", "ts": )", i,
                    R"(, "dur": 1, "pid": 1, "tid": 1})");
  }
  one_line += "]}";
  for (const std::string& text : {KinetoText(3, 1, big), one_line}) {
    const TwoReads reads = ReadGzippedBothWays(text);
    ASSERT_TRUE(reads.one_pass.ok()) << reads.one_pass.status();
    ASSERT_TRUE(reads.in_parts.ok()) << reads.in_parts.status();
    EXPECT_FALSE(reads.streamed);
    ExpectIdentical(*reads.one_pass, *reads.in_parts);
  }
  // A damaged CRC is only known once the last window is read.
  std::string gz = Gzip(KinetoText(400));
  gz[gz.size() - 6] = static_cast<char>(gz[gz.size() - 6] ^ 1);
  KinetoReader one({}, kOnePass);
  KinetoReader streamed({}, kInTurn);
  const absl::Status whole = one.ReadBytes(gz, "t.json.gz").status();
  EXPECT_EQ(whole.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(streamed.ReadBytes(gz, "t.json.gz").status(), whole);
}

TEST(ParallelReadTest, GzipIsReadInTwoPartsWhileItInflatesAsOnePass) {
  // Windows of 4 KiB in a text of ~100 KiB: the helper publishes each window
  // as it inflates it, so the first part is parsed while the rest inflates.
  const std::string text = KinetoText(400, -1, "", R"(,
  "traceName": "w.pt.trace.json", "baseTimeNanoseconds": 1700000000000000000,
  "distributedInfo": {"backend": "gloo", "rank": 1, "world_size": 2})");
  for (int round = 0; round < 20; ++round) {  // threads interleave differently
    const TwoReads reads = ReadGzippedBothWays(text, {}, kTwoParts);
    ASSERT_TRUE(reads.one_pass.ok()) << reads.one_pass.status();
    ASSERT_TRUE(reads.in_parts.ok()) << reads.in_parts.status();
    EXPECT_TRUE(reads.while_inflating);
    EXPECT_FALSE(reads.streamed);
    // Two parts when the helper had some left to take (below, always).
    EXPECT_GE(reads.parts, 1u);
    EXPECT_LE(reads.parts, 2u);
    ExpectIdentical(*reads.one_pass, *reads.in_parts);
    EXPECT_EQ(reads.in_parts->metadata.trace_name, "w.pt.trace.json");
    EXPECT_EQ(reads.in_parts->metadata.rank, 1);
  }
  const TwoReads legacy = ReadGzippedBothWays(LegacyBareArray(), {}, kTwoParts);
  ASSERT_TRUE(legacy.in_parts.ok()) << legacy.in_parts.status();
  EXPECT_TRUE(legacy.while_inflating);
  ExpectIdentical(*legacy.one_pass, *legacy.in_parts);
}

// The helper's part, appended after the calling thread's: its strings and the
// ids written as names (events 300 and 320 of the second text) as one pass
// gives them.
TEST(ParallelReadTest, TheHelpersPartIsAppendedAsOnePassReadsIt) {
  const std::string twice = IdKeysNameThenNumber();
  const std::string name_last = IdKeysNumberThenName();
  for (const std::string& text :
       {KinetoText(400, -1, "", R"(, "traceName": "w.pt.trace.json")"),
        KinetoText(400, 300, twice), KinetoText(400, 320, name_last),
        LegacyBareArray()}) {
    KinetoReader one({}, kOnePass);
    const absl::StatusOr<Trace> expected = one.ReadBytes(text, "t.json");
    ASSERT_TRUE(expected.ok()) << expected.status();
    InflatingPartReader reader;
    reader.WaitForInflationForTesting(true);
    const ArgNameTable arg_names;
    simdjson::ondemand::parser parser;
    const std::string gz = Gzip(text);
    std::optional<Trace> read =
        reader.Read(gz, "t.json", {}, arg_names, 4 << 10, parser);
    ASSERT_TRUE(read.has_value());
    EXPECT_EQ(reader.parts(), 2u);
    ExpectIdentical(*expected, *read);
  }
}

// What the two threads cannot prove is read whole: the same trace or error.
TEST(ParallelReadTest, WhatCannotBeReadWhileInflatingIsReadWhole) {
  const std::string text = KinetoText(400);
  // Two gzip members: the trailer announces only the second's size, so the
  // text outgrows the buffer sized from it.
  const std::string two_members = Gzip(text.substr(0, text.size() / 2)) +
                                  Gzip(text.substr(text.size() / 2));
  {
    KinetoReader one({}, kOnePass);
    KinetoReader two({}, kTwoParts);
    const absl::StatusOr<Trace> a = one.ReadBytes(two_members, "t.json.gz");
    const absl::StatusOr<Trace> b = two.ReadBytes(two_members, "t.json.gz");
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_FALSE(two.last_read_while_inflating());
    ExpectIdentical(*a, *b);
  }
  // No cut past the split point (the array on one line), and an event larger
  // than a window.
  std::string one_line = R"({"traceEvents": [)";
  for (int i = 0; i < 2000; ++i) {
    base::StrAppend(&one_line, i == 0 ? "" : ", ",
                    R"({"ph": "X", "name": "op", "ts": )", i,
                    R"(, "dur": 1, "pid": 1, "tid": 1})");
  }
  one_line += "]}";
  for (const std::string& t :
       {one_line, KinetoText(300, 100, EventWithObjectsOnLines())}) {
    const TwoReads reads = ReadGzippedBothWays(t, {}, kTwoParts);
    ASSERT_TRUE(reads.one_pass.ok()) << reads.one_pass.status();
    ASSERT_TRUE(reads.in_parts.ok()) << reads.in_parts.status();
    EXPECT_FALSE(reads.while_inflating);
    ExpectIdentical(*reads.one_pass, *reads.in_parts);
  }
  // A damaged CRC is only known once the helper has inflated everything.
  std::string gz = Gzip(text);
  gz[gz.size() - 6] = static_cast<char>(gz[gz.size() - 6] ^ 1);
  KinetoReader one({}, kOnePass);
  KinetoReader two({}, kTwoParts);
  const absl::Status whole = one.ReadBytes(gz, "t.json.gz").status();
  EXPECT_EQ(whole.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(two.ReadBytes(gz, "t.json.gz").status(), whole);
}

}  // namespace
}  // namespace profdiff::trace
