// Where a trace's event array can be cut for parsing on several threads
// (event_split.cc): the array's brackets in both document shapes, cuts only
// between two events on their own lines, and no cut where none is safe.
#include "trace/event_split.h"

#include <string>

#include <gtest/gtest.h>

namespace profdiff::trace {
namespace {

// Each event on its own line, as Kineto writes them.
constexpr std::string_view kFourEvents = R"({"traceEvents": [
  {"name": "a", "ts": 1},
  {"name": "b", "ts": 2},
  {"name": "c", "ts": 3},
  {"name": "d", "ts": 4}
], "traceName": "t"})";

TEST(EventSplitTest, FindsTheArrayBracketsAfterTraceEvents) {
  const EventSplit split = FindEventSplit(kFourEvents, 2);
  EXPECT_EQ(split.array_begin, kFourEvents.find('['));
  EXPECT_EQ(split.array_end, kFourEvents.find(']'));
}

TEST(EventSplitTest, CutsAtTheCommaBetweenTwoEventLines) {
  const EventSplit split = FindEventSplit(kFourEvents, 2);
  ASSERT_EQ(split.cuts.size(), 1u);
  const EventCut& cut = split.cuts[0];
  EXPECT_EQ(kFourEvents[cut.comma], ',');
  EXPECT_EQ(kFourEvents[cut.next], '{');
  EXPECT_LT(cut.comma + 1, cut.next);
  // The earlier part ends with a whole event, the later starts with one.
  EXPECT_EQ(kFourEvents.substr(cut.comma - 1, 1), "}");
  EXPECT_EQ(kFourEvents.substr(cut.next, 12), R"({"name": "c")");
}

TEST(EventSplitTest, CutsAreIncreasingAndInsideTheArray) {
  const EventSplit split = FindEventSplit(kFourEvents, 4);
  ASSERT_EQ(split.cuts.size(), 3u);
  size_t previous = split.array_begin;
  for (const EventCut& cut : split.cuts) {
    EXPECT_GT(cut.comma, previous);
    EXPECT_LT(cut.next, split.array_end);
    previous = cut.next;
  }
}

TEST(EventSplitTest, FirstCutInFindsTheCutAtTheFirstNewlineFromAPoint) {
  // From inside event "b": the cut before "c"; from before "a"'s line ends:
  // the cut before "b"; a limit short of every cut's newline: none.
  const size_t in_b = kFourEvents.find(R"("b")");
  EventCut cut;
  ASSERT_TRUE(FirstCutIn(kFourEvents, in_b, kFourEvents.size(), &cut));
  EXPECT_EQ(kFourEvents.substr(cut.next, 12), R"({"name": "c")");
  ASSERT_TRUE(FirstCutIn(kFourEvents, 0, kFourEvents.size(), &cut));
  EXPECT_EQ(kFourEvents.substr(cut.next, 12), R"({"name": "b")");
  const size_t after_a = kFourEvents.find("},") + 2;  // before its newline
  EXPECT_FALSE(FirstCutIn(kFourEvents, in_b, in_b + 10, &cut));
  EXPECT_FALSE(FirstCutIn(kFourEvents, 0, after_a, &cut));
  // The last event's line ends the array: no cut after it.
  EXPECT_FALSE(FirstCutIn(kFourEvents, kFourEvents.find(R"("d")"),
                          kFourEvents.size(), &cut));
}

TEST(EventSplitTest, NeverMoreCutsThanEventBoundaries) {
  EXPECT_EQ(FindEventSplit(kFourEvents, 10).cuts.size(), 3u);
}

TEST(EventSplitTest, OnePartOrNoneGivesNoCut) {
  for (size_t parts : {0, 1}) {
    const EventSplit split = FindEventSplit(kFourEvents, parts);
    EXPECT_TRUE(split.cuts.empty());
    EXPECT_EQ(split.array_begin, 0u);
    EXPECT_EQ(split.array_end, 0u);
  }
}

TEST(EventSplitTest, BareArrayStartsAtTheFirstByte) {
  const std::string json = "  [\n  {\"ts\": 1},\n  {\"ts\": 2}\n]\n";
  const EventSplit split = FindEventSplit(json, 2);
  EXPECT_EQ(split.array_begin, 2u);
  EXPECT_EQ(split.array_end, json.rfind(']'));
  ASSERT_EQ(split.cuts.size(), 1u);
  EXPECT_EQ(split.cuts[0].next, json.find("{\"ts\": 2}"));
}

TEST(EventSplitTest, ArrayOnOneLineGivesNoCut) {
  const EventSplit split = FindEventSplit(
      R"({"traceEvents": [{"ts": 1}, {"ts": 2}, {"ts": 3}]})", 2);
  EXPECT_TRUE(split.cuts.empty());
  EXPECT_EQ(split.array_begin, 16u);
}

TEST(EventSplitTest, NewlinesInsideAnEventAreNotCuts) {
  // Line starts inside an event's arguments: "[\n" and "1,\n" are no
  // "},\n{".
  const std::string json =
      "{\"traceEvents\": [\n  {\"args\": [\n  1,\n  {\"x\": 2}]}\n]}";
  EXPECT_TRUE(FindEventSplit(json, 3).cuts.empty());
}

TEST(EventSplitTest, NoEventArrayGivesNoSplit) {
  for (std::string_view json : {std::string_view(""), std::string_view("   "),
                                std::string_view(R"({"schemaVersion": 1})"),
                                std::string_view(R"({"traceEvents": 5})"),
                                std::string_view(R"({"traceEvents": []})")}) {
    const EventSplit split = FindEventSplit(json, 4);
    EXPECT_TRUE(split.cuts.empty()) << json;
    EXPECT_EQ(split.array_end, 0u) << json;
  }
}

TEST(EventSplitTest, TheArrayEndsAtTheLastBracketAfterAnEvent) {
  // A later "]" (in the trailing fields) that follows no event is not the
  // array's end.
  const std::string json =
      "{\"traceEvents\": [\n  {\"ts\": 1},\n  {\"ts\": 2}\n],\n"
      "\"deviceProperties\": []}";
  const EventSplit split = FindEventSplit(json, 2);
  EXPECT_EQ(split.array_end, json.find("],"));
  EXPECT_EQ(split.cuts.size(), 1u);
}

}  // namespace
}  // namespace profdiff::trace
