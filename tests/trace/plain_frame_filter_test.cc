#include "trace/plain_frame_filter.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <absl/strings/numbers.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/str_cat.h"
#include "tests/support/trace_comparison.h"
#include "tests/trace/kineto_read.h"
#include "trace/kineto_reader.h"
#include "trace/trace_file.h"

namespace profdiff::trace {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr std::string_view kStart =
    R"("ph": "X", "cat": "python_function", "name": ")";

// A frame as Kineto writes it.
std::string Frame(std::string_view name, std::string_view ts = "10.500",
                  std::string_view dur = "2.250") {
  return base::StrCat("{\n    ", kStart, name, R"(", "pid": 425, "tid": 425,)",
                      "\n    \"ts\": ", ts, ", \"dur\": ", dur,
                      ",\n    \"args\": {\n      \"Python parent id\": 92, "
                      "\"Python id\": 101, \"Ev Idx\": 6515\n    }\n  }");
}

// MatchPlainFrame on `frame`'s text (padded as a part is), from its name: the
// length matched, or nullopt.
std::optional<size_t> Match(const std::string& frame, int64_t* start_ns,
                            int64_t* end_ns,
                            uint32_t max_string_bytes = 1 << 20) {
  const std::string padded = frame + std::string(kJsonPadding, ' ');
  const size_t name = padded.find(kStart);
  if (name == std::string::npos) return std::nullopt;
  const char* end = MatchPlainFrame(padded.data() + name + kStart.size(),
                                    padded.data() + frame.size(),
                                    max_string_bytes, start_ns, end_ns);
  if (end == nullptr) return std::nullopt;
  return static_cast<size_t>(end - padded.data());
}

bool Matches(const std::string& frame) {
  int64_t start = 0;
  int64_t end = 0;
  return Match(frame, &start, &end).has_value();
}

TEST(PlainFrameFilterTest, AKinetoFrameMatchesWithItsTimes) {
  const std::string frame = Frame("torch/nn/functional.py(2380): layer_norm");
  int64_t start = 0;
  int64_t end = 0;
  EXPECT_EQ(Match(frame, &start, &end), frame.size());
  EXPECT_EQ(start, 10'500);
  EXPECT_EQ(end, 12'750);
  // One line, as HTA and TraceLens write traces back.
  EXPECT_TRUE(Matches(base::StrCat(
      "{", kStart,
      R"(f", "pid": 1, "tid": 1, "ts": 1, "dur": 0, "args": {"Python id": 2}})")));
  // Times in any JSON spelling one pass reads; other scalars and an empty
  // object.
  EXPECT_TRUE(Matches(base::StrCat(
      "{", kStart,
      R"(f", "ts": 1.5e3, "dur": 2E-1, "x": true, "y": null, "z": "s", "a": {}})")));
}

TEST(PlainFrameFilterTest, WhatOnePassReadsOtherwiseIsNotMatched) {
  EXPECT_FALSE(Matches(Frame("nn.Module: Linear_0")));  // a module range
  EXPECT_FALSE(Matches(Frame(R"(a\"b)")));  // escaped: one pass unescapes
  EXPECT_FALSE(Matches(Frame("a\tb")));     // control character
  EXPECT_FALSE(
      Matches(Frame("a\xff"
                    "b")));                      // not UTF-8
  EXPECT_TRUE(Matches(Frame("caf\xc3\xa9")));    // UTF-8
  EXPECT_FALSE(Matches(Frame("f", "-")));        // a time one pass refuses
  EXPECT_FALSE(Matches(Frame("f", "1", "-1")));  // negative duration
  EXPECT_FALSE(Matches(Frame("f", "1x")));       // an atom past the time
  int64_t start = 0;
  int64_t end = 0;
  EXPECT_FALSE(Match(Frame("abcdef"), &start, &end, 5));  // too long
  EXPECT_TRUE(Match(Frame("abcde"), &start, &end, 5));
  const auto with = [](std::string_view fields) {
    return Matches(base::StrCat("{", kStart, "f\"", fields, "}"));
  };
  EXPECT_FALSE(with(R"(, "ts": 1)"));                        // no duration
  EXPECT_FALSE(with(R"(, "dur": 1)"));                       // no start
  EXPECT_FALSE(with(R"(, "ts": 1, "dur": 1, "ts": 2)"));     // repeated time
  EXPECT_FALSE(with(R"(, "ts": 1, "dur": 1, "pid": 12x)"));  // bad atom
  EXPECT_FALSE(with(R"(, "ts": 1, "dur": 1, "pid": 01)"));   // not JSON
  EXPECT_FALSE(with(R"(, "ts": 1, "dur": 1, "a": [1])"));    // an array
  EXPECT_FALSE(with(R"(, "ts": 1, "dur": 1, "a": {"b": {}})"));  // deeper
  EXPECT_FALSE(with(R"(, "ts": 1, "dur": 1, "k\u0061": 1)"));    // escaped key
  EXPECT_FALSE(with(R"(, "ts": 1, "dur": 1,})"));  // trailing comma
  EXPECT_FALSE(with(R"(, "ts": 1 "dur": 1)"));     // no comma
}

// A name's text is scanned many bytes at a time: a byte one pass refuses (an
// escape, a control character, a byte that is not UTF-8) is found at every
// place in names of every length around the scan's widths, and a valid UTF-8
// letter is taken wherever it falls.
TEST(PlainFrameFilterTest, ANamesRefusedByteIsFoundWhereverItFalls) {
  for (size_t length = 1; length <= 40; ++length) {
    for (size_t at = 0; at < length; ++at) {
      std::string name(length, 'a');
      SCOPED_TRACE(base::StrCat(length, " bytes, byte ", at));
      EXPECT_TRUE(Matches(Frame(name)));
      for (const char refused : {'\\', '\x1f', '\x01', '\xff', '\x80'}) {
        name[at] = refused;
        EXPECT_FALSE(Matches(Frame(name))) << static_cast<int>(refused);
      }
      name[at] = 'a';
      if (at + 1 < length) {
        name[at] = '\xc3';
        name[at + 1] = '\xa9';
        EXPECT_TRUE(Matches(Frame(name)));
      }
    }
  }
}

// Filters `part` and returns what simdjson is given.
std::string Filtered(PlainFrameFilter& filter, const std::string& part,
                     ReaderLimits limits = {.keep_python_frames = false}) {
  const std::string padded = part + std::string(kJsonPadding, ' ');
  EXPECT_TRUE(filter.Filter(padded.data(), 0, part.size() - 1, limits));
  return std::string(filter.json());
}

TEST(PlainFrameFilterTest, FramesLeaveThePartWithTheirSeparators) {
  const std::string op = R"({"ph": "X", "cat": "cpu_op", "name": "op"})";
  PlainFrameFilter filter;
  // First, between and last.
  EXPECT_EQ(
      Filtered(filter,
               base::StrCat("[\n  ", Frame("a", "1", "1"), ",\n  ", op, ",\n  ",
                            Frame("b", "5", "1"), ",\n  ", Frame("c", "3", "4"),
                            ",\n  ", op, ",\n  ", Frame("d", "2", "1"), "\n]")),
      base::StrCat("[\n  ", op, ",\n  ", op, "]"));
  EXPECT_EQ(filter.frames(), 4);
  EXPECT_EQ(filter.extent().first_start_ns, 1'000);
  EXPECT_EQ(filter.extent().last_end_ns, 7'000);
  // The first op, then the second: where each event must start.
  EXPECT_THAT(filter.seams(), ElementsAre(4, 4 + op.size() + 4));
  // Nothing but frames; nothing but events.
  EXPECT_EQ(
      Filtered(filter, base::StrCat("[", Frame("a"), ",", Frame("b"), "]")),
      "[]");
  EXPECT_EQ(filter.frames(), 2);
  EXPECT_EQ(Filtered(filter, base::StrCat("[", op, "]")),
            base::StrCat("[", op, "]"));
  EXPECT_EQ(filter.frames(), 0);
  EXPECT_THAT(filter.seams(), IsEmpty());
  EXPECT_TRUE(filter.extent().empty());
}

// Between two frames Kineto writes the same text, and the filter takes the
// next frame's start from it without looking: whatever that next object
// turns out to be (a module range, a name one pass unescapes, a frame whose
// times one pass refuses, the part's last), the part comes out as when each
// element is looked for (spaced otherwise, so no separator is Kineto's).
TEST(PlainFrameFilterTest, TheNextFrameAfterKinetosSeparatorIsTheOneLookedFor) {
  const std::string op = R"({"ph": "X", "cat": "cpu_op", "name": "op"})";
  const std::vector<std::string> elements = {
      Frame("a", "1", "1"), Frame("b", "5", "1"),  Frame("nn.Module: m"),
      Frame("c", "3", "4"), Frame(R"(e\"scaped)"), Frame("d", "2", "1"),
      Frame("f", "-", "1"), Frame("g", "9", "1"),  op,
      Frame("h", "4", "2"), Frame("i", "6", "1")};
  const auto part = [&](std::string_view separator) {
    std::string text = "[\n  ";
    for (size_t i = 0; i < elements.size(); ++i)
      base::StrAppend(&text, i == 0 ? "" : separator, elements[i]);
    return text + "\n]";
  };
  const auto squeezed = [](std::string text) {
    std::erase_if(text, [](char c) { return c == ' ' || c == '\n'; });
    return text;
  };
  PlainFrameFilter kineto;
  const std::string spelt = Filtered(kineto, part(",\n  "));
  PlainFrameFilter looked_for;
  const std::string spaced = Filtered(looked_for, part(" ,\n  "));
  EXPECT_EQ(squeezed(spelt), squeezed(spaced));
  EXPECT_EQ(kineto.frames(), 7);  // a, b, c, d, g, h, i
  EXPECT_EQ(kineto.frames(), looked_for.frames());
  EXPECT_EQ(kineto.extent().first_start_ns, looked_for.extent().first_start_ns);
  EXPECT_EQ(kineto.extent().last_end_ns, looked_for.extent().last_end_ns);
  EXPECT_EQ(kineto.seams().size(), looked_for.seams().size());
  EXPECT_EQ(squeezed(spelt),
            squeezed(base::StrCat("[", Frame("nn.Module: m"), ",",
                                  Frame(R"(e\"scaped)"), ",",
                                  Frame("f", "-", "1"), ",", op, "]")));
}

TEST(PlainFrameFilterTest, FramesOfAnotherLayoutAreMatchedFieldByField) {
  // The first frame's layout is learnt and matches the second; the third has
  // other fields and the fourth Kineto's again, so each is matched field by
  // field (and its layout learnt in turn).
  const std::string other = base::StrCat(
      "{", kStart, R"(c", "pid": 1, "tid": 1, "ts": 7, "dur": 1, "x": 0})");
  PlainFrameFilter filter;
  EXPECT_EQ(Filtered(filter, base::StrCat("[", Frame("a", "1", "1"), ",",
                                          Frame("b", "2", "1"), ",", other, ",",
                                          Frame("d", "1e1", "1"), "]")),
            "[]");
  EXPECT_EQ(filter.frames(), 4);
  EXPECT_EQ(filter.frames_by_layout(), 1);
  EXPECT_EQ(filter.extent().last_end_ns, 11'000);
  // The layout carries over to the next part: both frames match it, however
  // their numbers are spelt.
  EXPECT_EQ(Filtered(filter, base::StrCat("[", Frame("e", "5", "2"), ",",
                                          Frame("f", "1.5e1", "0.125"), "]")),
            "[]");
  EXPECT_EQ(filter.frames_by_layout(), 2);
  EXPECT_EQ(filter.extent().first_start_ns, 5'000);
  EXPECT_EQ(filter.extent().last_end_ns, 15'125);
  // A frame that differs from the layout only where one pass would refuse it
  // is not taken out.
  EXPECT_EQ(Filtered(filter, base::StrCat("[", Frame("a"), ",",
                                          Frame("b", "1", "-1"), "]")),
            base::StrCat("[", Frame("b", "1", "-1"), "]"));
}

// The learnt layout compares its text in words and skips numbers in words:
// a text of any length that differs in any one byte is not the layout's (the
// frame is then matched field by field), and a number of any length is read
// whole.
TEST(PlainFrameFilterTest, TheLayoutTellsEveryByteAndReadsNumbersOfAnyLength) {
  const auto frame = [](std::string_view key, std::string_view value,
                        std::string_view ts = "1", std::string_view tail = "") {
    return base::StrCat("{", kStart, R"(f", "ts": )", ts, R"(, "dur": 1, ")",
                        key, R"(": )", value, tail, "}");
  };
  // Learnt, by the layout, not by it nor by the second frame kept (learnt
  // in turn), by the second frame kept: two by the layout or kept frame.
  const auto by_layout = [&](const std::string& same,
                             const std::string& other) {
    PlainFrameFilter filter;
    EXPECT_EQ(Filtered(filter, base::StrCat("[", same, ",", same, ",", other,
                                            ",", same, "]")),
              "[]");
    EXPECT_EQ(filter.frames(), 4);
    return filter.frames_by_layout();
  };
  for (size_t length = 1; length <= 20; ++length) {
    // A key: text of 7 to 26 bytes between two numbers.
    const std::string key(length, 'k');
    // Blanks before the '}': the layout's last text, of 1 to 20 bytes.
    const std::string tail(length - 1, ' ');
    for (size_t at = 0; at < length; ++at) {
      std::string other_key = key;
      other_key[at] = 'j';
      EXPECT_EQ(by_layout(frame(key, "1"), frame(other_key, "1")), 2)
          << "a key of " << length << " differing at " << at;
      if (at + 1 < length) {
        std::string other_tail = tail;
        other_tail[at] = '\t';
        EXPECT_EQ(by_layout(frame("k", "1", "1", tail),
                            frame("k", "1", "1", other_tail)),
                  2)
            << "an end of " << length << " differing at " << at;
      }
    }
  }
  std::string digits;
  for (size_t length = 1; length <= 19; ++length) {
    PlainFrameFilter filter;
    digits += static_cast<char>('0' + length % 9 + 1);
    // A number of `length` digits before the layout's next text, and a time of
    // as many integer digits as one pass reads exactly (15).
    const std::string ts = digits.substr(0, std::min<size_t>(length, 15));
    EXPECT_EQ(
        Filtered(filter, base::StrCat("[", frame("k", "1"), ",",
                                      frame("k", digits, ts + ".125"), "]")),
        "[]");
    EXPECT_EQ(filter.frames(), 2);
    EXPECT_EQ(filter.frames_by_layout(), 1) << length << " digits";
    int64_t micros = 0;
    ASSERT_TRUE(absl::SimpleAtoi(ts, &micros));
    EXPECT_EQ(filter.extent().last_end_ns, micros * 1000 + 125 + 1000)
        << length << " digits";
  }
}

// A frame spelt as the one kept but for digits in the same places is matched
// by it, and only such a frame: the filter's answer for each one-byte change
// of the kept frame's text is the field-by-field match's.
TEST(PlainFrameFilterTest, TheFrameKeptMatchesFramesThatDifferInDigitsOnly) {
  const std::string kept = Frame("f", "2395518768772.032", "743158.321");
  const size_t body = kept.find('"', kept.find(kStart) + kStart.size()) + 1;
  int64_t digit_changes = 0;
  for (size_t at = body; at < kept.size(); ++at) {
    const bool digit = kept[at] >= '0' && kept[at] <= '9';
    // '/' and ':' lie either side of the digits.
    for (const char byte : {'0', '7', '9', '/', ':', 'x', ' ', '-', '\xc3'}) {
      if (byte == kept[at]) continue;
      std::string changed = kept;
      changed[at] = byte;
      PlainFrameFilter filter;
      const std::string filtered = Filtered(
          filter, base::StrCat("[", kept, ",", kept, ",", changed, "]"));
      int64_t start = 0;
      int64_t end = 0;
      const bool frame = Match(changed, &start, &end).has_value();
      SCOPED_TRACE(base::StrCat("byte ", at - body,
                                " of the text past the "
                                "name made '",
                                std::string(1, byte), "'"));
      // The first two are taken out by the field-by-field match and the
      // layout; the changed one as that match says.
      ASSERT_EQ(filter.frames(), frame ? 3 : 2);
      EXPECT_EQ(filtered, frame ? "[]" : base::StrCat("[", changed, "]"));
      if (frame) {
        EXPECT_EQ(filter.extent().first_start_ns,
                  std::min<int64_t>(start, 2395518768772'032));
        EXPECT_EQ(filter.extent().last_end_ns,
                  std::max<int64_t>(end, 2395519511930'353));
      }
      // A digit for a digit, unless an integer part now starts with a zero
      // (which JSON refuses, and the field-by-field match with it).
      const bool like_kept = digit && byte >= '0' && byte <= '9' && frame;
      EXPECT_EQ(filter.frames_like_kept(), like_kept ? 1 : 0);
      digit_changes += like_kept ? 1 : 0;
    }
  }
  // The 40 digits past the name made '0', '7' and '9' where they differ (112
  // changes), less the five numbers (both 425s, 92, 101, 6515) made to start
  // with a zero. The times may: one pass reads their text as it is.
  EXPECT_EQ(digit_changes, 112 - 5);
}

// The kept frame's compare on 16-byte vectors and on the widest this CPU has
// (AVX2's 32 bytes where it has them) gives a byte-by-byte check's answer, for
// every length and wherever the one byte out of its range falls, at either
// edge of its range.
TEST(PlainFrameFilterTest, TheTemplateCompareOfEachWidthChecksEveryByte) {
  std::mt19937 random(52);
  for (size_t n = 16; n <= 200; ++n) {
    std::string low(n, '\0');
    std::string span(n, '\0');
    std::string text(n, '\0');
    for (size_t i = 0; i < n; ++i) {
      const bool digit = random() % 3 == 0;
      low[i] = digit ? '0' : static_cast<char>(random() % 256);
      span[i] = digit ? 9 : 0;
      text[i] =
          static_cast<char>(static_cast<unsigned char>(low[i]) +
                            random() % (static_cast<unsigned>(span[i]) + 1));
    }
    const auto both = [&](const std::string& c) {
      const bool narrow = plain_frame_filter_internal::InRanges16(
          c.data(), low.data(), span.data(), n);
      const bool widest = plain_frame_filter_internal::InRangesWidest(
          c.data(), low.data(), span.data(), n);
      EXPECT_EQ(narrow, widest) << n << " bytes";
      return narrow;
    };
    EXPECT_TRUE(both(text)) << n << " bytes";
    for (size_t at = 0; at < n; ++at) {
      const unsigned from = static_cast<unsigned char>(low[at]);
      const unsigned to = from + static_cast<unsigned char>(span[at]);
      for (const unsigned byte : {from - 1, to + 1, from, to}) {
        std::string changed = text;
        changed[at] = static_cast<char>(byte & 0xff);
        const bool in = (byte & 0xff) >= from && (byte & 0xff) <= to;
        ASSERT_EQ(both(changed), in)
            << n << " bytes, byte " << at << " made " << (byte & 0xff);
      }
    }
  }
}

TEST(PlainFrameFilterTest, WhatWouldFailOnePassStaysInThePart) {
  PlainFrameFilter filter;
  // A comma with no element before it: taking the frame out with it would
  // leave "[ ]", which parses where one pass fails. The last frame stays (a
  // frame between the comma and the next element may go: the comma left
  // still fails the part).
  const std::string alone = base::StrCat("[ ,", Frame("a"), "]");
  EXPECT_EQ(Filtered(filter, alone), alone);
  EXPECT_EQ(filter.frames(), 0);
  EXPECT_EQ(Filtered(filter,
                     base::StrCat("[ ,", Frame("a"), ",\n  ", Frame("b"), "]")),
            base::StrCat("[ ,", Frame("b"), "]"));
  EXPECT_EQ(filter.frames(), 1);
  EXPECT_THAT(filter.seams(), ElementsAre(3));
  // One pass checks the length of "python_function": the filter stays out of
  // the way of a limit below it.
  EXPECT_FALSE(PlainFrameFilter::Applies(
      {.max_string_bytes = 14, .keep_python_frames = false}));
  EXPECT_TRUE(PlainFrameFilter::Applies(
      {.max_string_bytes = 15, .keep_python_frames = false}));
}

TEST(PlainFrameFilterTest, OnlyObjectsBetweenElementsAreCandidates) {
  PlainFrameFilter filter;
  // A frame's text as the value of a key, or after a non-separator: kept.
  const std::string as_value =
      base::StrCat(R"([{"ph": "X", "a": )", Frame("x"), "}]");
  EXPECT_EQ(Filtered(filter, as_value), as_value);
  // Followed by something other than an element: kept.
  const std::string before_key =
      base::StrCat(R"([{"a": [1, )", Frame("x"), R"(, 2]}])");
  EXPECT_EQ(Filtered(filter, before_key), before_key);
  // Frames are kept when the limits keep them, or allow too little depth.
  EXPECT_FALSE(PlainFrameFilter::Applies({}));
  EXPECT_FALSE(
      PlainFrameFilter::Applies({.max_depth = 3, .keep_python_frames = false}));
  EXPECT_TRUE(
      PlainFrameFilter::Applies({.max_depth = 4, .keep_python_frames = false}));
}

// A trace of `events` ops and frames, one per line, with `inside` as the
// arguments of event `at`: read streamed in 4 KiB windows and in one pass, both
// leaving frames out.
struct Reads {
  absl::StatusOr<Trace> one_pass;
  absl::StatusOr<Trace> streamed;
  bool was_streamed = false;
};

Reads ReadBothWays(int events, int at, std::string_view inside) {
  std::string text = R"({"traceEvents": [)";
  for (int i = 0; i < events; ++i) {
    text += i == 0 ? "\n  " : ",\n  ";
    if (i % 3 != 0) {
      text += Frame(base::StrCat("f", i), base::StrCat(100 + i), "1");
      continue;
    }
    base::StrAppend(&text, R"({"ph": "X", "cat": "cpu_op", "name": "op", )",
                    R"("pid": 1, "tid": 1, "ts": )", 100 + i,
                    R"(, "dur": 1, "args": {"Input Dims": )",
                    i == at ? inside : "[]", "}}");
  }
  text += "\n]}\n";
  const std::string gz = Gzip(text);
  constexpr ReaderLimits kLeaveOut{.keep_python_frames = false};
  KinetoReader one(kLeaveOut, {.threads = 1, .in_turn_part_bytes = 0});
  KinetoReader streamed(kLeaveOut,
                        {.threads = 1, .in_turn_part_bytes = 4 << 10});
  Reads reads{one.ReadBytes(gz, "t.json.gz"),
              streamed.ReadBytes(gz, "t.json.gz")};
  reads.was_streamed = streamed.last_read_streamed();
  return reads;
}

// The reads are the same: events, arguments, strings by id, counters,
// extents and metadata.
void ExpectSameRead(const Trace& one_pass, const Trace& streamed) {
  ASSERT_NO_FATAL_FAILURE(test_support::ExpectSameEvents(one_pass, streamed));
  ASSERT_EQ(one_pass.strings.size(), streamed.strings.size());
  for (uint32_t k = 0; k < one_pass.strings.size(); ++k) {
    EXPECT_EQ(one_pass.strings.Get(StringId{k}),
              streamed.strings.Get(StringId{k}));
  }
  EXPECT_TRUE(one_pass.events == streamed.events);
  EXPECT_TRUE(one_pass.args == streamed.args);
  EXPECT_TRUE(one_pass.counters == streamed.counters);
  EXPECT_TRUE(one_pass.left_out_frames == streamed.left_out_frames);
  EXPECT_TRUE(one_pass.metadata == streamed.metadata);
}

TEST(PlainFrameFilterTest, StreamedReadsLeaveFramesOutAsOnePass) {
  const Reads reads = ReadBothWays(300, -1, "");
  ASSERT_TRUE(reads.one_pass.ok()) << reads.one_pass.status();
  ASSERT_TRUE(reads.streamed.ok()) << reads.streamed.status();
  EXPECT_TRUE(reads.was_streamed);
  EXPECT_EQ(reads.streamed->events.size(), 100u);
  EXPECT_EQ(reads.streamed->counters.python_frames_left_out, 200);
  EXPECT_EQ(reads.one_pass->counters.python_frames_left_out, 200);
  EXPECT_TRUE(reads.streamed->left_out_frames ==
              reads.one_pass->left_out_frames);
  EXPECT_EQ(reads.streamed->left_out_frames.back().first_start_ns, 101'000);
  EXPECT_EQ(reads.streamed->left_out_frames.back().last_end_ns, 400'000);
  ExpectSameRead(*reads.one_pass, *reads.streamed);
}

TEST(PlainFrameFilterTest, AFrameInsideAnEventsArgumentsIsNotTakenOut) {
  // A frame-shaped object in an array of an op's arguments, between two
  // objects on lines of their own: taken out, it would leave a seam inside
  // the op, so the part is read in one pass.
  const std::string inside = base::StrCat(
      "[{\"a\": 1},\n  ", Frame("nested", "5000", "1"), ",\n  {\"b\": 2}]");
  const Reads reads = ReadBothWays(300, 150, inside);
  ASSERT_TRUE(reads.one_pass.ok()) << reads.one_pass.status();
  ASSERT_TRUE(reads.streamed.ok()) << reads.streamed.status();
  EXPECT_EQ(reads.streamed->counters.python_frames_left_out, 200);
  EXPECT_TRUE(reads.streamed->left_out_frames ==
              reads.one_pass->left_out_frames);
  EXPECT_EQ(reads.streamed->left_out_frames.back().last_end_ns, 400'000);
  ExpectSameRead(*reads.one_pass, *reads.streamed);
  // The stream failed at the seam; the file was read whole.
  EXPECT_FALSE(reads.was_streamed);
}

}  // namespace
}  // namespace profdiff::trace
