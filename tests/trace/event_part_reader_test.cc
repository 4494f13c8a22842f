// EventPartReader with a stand-in PartParser that reads a tiny event schema
// ({"name": ..., "ts": ...}): how many parts a text gets, where the text is cut
// and put back, what comes from the text around the event array, the order
// and strings of the merged result, and every case where only one pass can
// give the answer (nullopt). That the real parser gives one pass's result in
// parts is parallel_read_test.cc's.
#include "trace/event_part_reader.h"

#include <cstdint>
#include <string>
#include <vector>

#include <absl/synchronization/mutex.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "trace/reader_limits.h"

namespace profdiff::trace {
namespace {

namespace od = simdjson::ondemand;

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr uint64_t kNoEventLimit = 1'000'000;
constexpr size_t kMiB = size_t{1} << 20;

// One row with every column at its default but name and start.
void AppendEvent(Trace& trace, std::string_view name, int64_t start_ns) {
  trace.events.ForEachColumn([](auto& column) { column.emplace_back(); });
  trace.events.name.back() = trace.strings.Intern(name);
  trace.events.start_ns.back() = start_ns;
  trace.events.arg_begin.push_back(static_cast<uint32_t>(trace.args.size()));
}

// Parses {"name": string, "ts": integer} events; an event named "fail" fails
// its part. Records every text it is given.
class FakePartParser final : public PartParser {
 public:
  bool fail_prepare = false;
  bool event_outside = false;      // the outside text "holds" an event
  size_t shift_events_offset = 0;  // the outside text's array is elsewhere

  absl::Status Prepare(size_t text_bytes, od::parser& parser) const override {
    if (fail_prepare) return absl::ResourceExhaustedError("no parser");
    if (parser.allocate(text_bytes) != simdjson::SUCCESS)
      return absl::ResourceExhaustedError("allocate");
    return absl::OkStatus();
  }

  absl::Status ParseEvents(
      std::string_view text, size_t capacity, od::parser& parser, Trace& out,
      std::vector<StringIdRow>& /*string_id_rows*/) const override {
    out.events.arg_begin.push_back(0);
    return ParseArray(text, capacity, parser, out);
  }

  absl::Status ParseEventsInTurn(const std::vector<Text>& texts,
                                 od::parser& parser,
                                 Trace& out) const override {
    ++in_turn_calls_;
    out.events.arg_begin.push_back(0);
    for (const Text& text : texts) {
      if (absl::Status s = ParseArray(text.text, text.capacity, parser, out);
          !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }

  absl::Status ParseWhole(std::string_view text, size_t /*capacity*/,
                          Trace& out, size_t& events_offset) override {
    outside_texts_.emplace_back(text);
    out.metadata.trace_name = "from the outside text";
    if (event_outside) AppendEvent(out, "stray", 0);
    events_offset = text.find('[') + shift_events_offset;
    return absl::OkStatus();
  }

  std::vector<std::string> part_texts() const {
    absl::MutexLock lock(&mu_);
    return part_texts_;
  }
  const std::vector<std::string>& outside_texts() const {
    return outside_texts_;
  }
  int in_turn_calls() const { return in_turn_calls_; }

 private:
  absl::Status ParseArray(std::string_view text, size_t capacity,
                          od::parser& parser, Trace& out) const {
    {
      absl::MutexLock lock(&mu_);
      part_texts_.emplace_back(text);
    }
    od::document doc;
    od::array events;
    if (parser.iterate(simdjson::padded_string_view(text, capacity)).get(doc) ||
        doc.get_array().get(events)) {
      return absl::InvalidArgumentError("not an array");
    }
    for (auto element : events) {
      od::object event;
      std::string_view name;
      int64_t ts = 0;
      if (element.get_object().get(event) ||
          event["name"].get_string().get(name) ||
          event["ts"].get_int64().get(ts)) {
        return absl::InvalidArgumentError("not an event");
      }
      if (name == "fail") return absl::InvalidArgumentError("failed event");
      AppendEvent(out, name, ts);
    }
    return absl::OkStatus();
  }

  mutable int in_turn_calls_ = 0;
  mutable absl::Mutex mu_;
  mutable std::vector<std::string> part_texts_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> outside_texts_;
};

// Each event on its own line, as Kineto writes them: 26 bytes a line.
constexpr std::string_view kFourEvents = R"({"traceEvents": [
  {"name": "a", "ts": 1},
  {"name": "b", "ts": 2},
  {"name": "c", "ts": 3},
  {"name": "d", "ts": 4}
], "traceName": "t"}
)";

TraceFileBuffer Load(std::string_view text) {
  TraceFileBuffer buffer;
  EXPECT_TRUE(buffer.LoadBytes(text, "test.json", ReaderLimits{}).ok());
  return buffer;
}

std::vector<std::string> Names(const Trace& trace) {
  std::vector<std::string> names;
  for (StringId id : trace.events.name)
    names.emplace_back(trace.strings.Get(id));
  return names;
}

TEST(EventPartCountTest, OnePartPerMinPartBytesUpToThreads) {
  const ReadParallelism four{.threads = 4, .min_part_bytes = 8 * kMiB};
  EXPECT_EQ(EventPartCount(20 * kMiB, four), 2u);   // 20 / 8 = 2
  EXPECT_EQ(EventPartCount(100 * kMiB, four), 4u);  // 100 / 8 = 12, > 4
}

TEST(EventPartCountTest, TextUnderMinPartBytesIsOnePart) {
  const ReadParallelism four{.threads = 4, .min_part_bytes = 8 * kMiB};
  EXPECT_EQ(EventPartCount(7 * kMiB, four), 1u);
  EXPECT_EQ(EventPartCount(0, four), 1u);
}

TEST(EventPartCountTest, NoThreadsIsOnePart) {
  EXPECT_EQ(EventPartCount(100 * kMiB, {.threads = 0}), 1u);
  EXPECT_EQ(EventPartCount(100 * kMiB, {.threads = -2}), 1u);
}

TEST(EventPartCountTest, ZeroMinPartBytesCountsAsOneByte) {
  EXPECT_EQ(EventPartCount(10, {.threads = 4, .min_part_bytes = 0}), 4u);
}

TEST(EventPartCountTest, PastSimdjsonsLargestDocumentIsOnePart) {
  const ReadParallelism four{.threads = 4, .min_part_bytes = 8 * kMiB};
  EXPECT_EQ(EventPartCount(simdjson::SIMDJSON_MAXSIZE_BYTES, four), 4u);
  EXPECT_EQ(EventPartCount(simdjson::SIMDJSON_MAXSIZE_BYTES + 1, four), 1u);
}

TEST(InTurnPartCountTest, OnePartPerInTurnPartBytes) {
  const ReadParallelism one{.threads = 1, .in_turn_part_bytes = kMiB};
  EXPECT_EQ(InTurnPartCount(62 * kMiB + 5, one), 62u);
  EXPECT_EQ(InTurnPartCount(2 * kMiB, one), 2u);
}

TEST(InTurnPartCountTest, UnderTwoPartsNoPartBytesOrPastSimdjsonIsOnePart) {
  const ReadParallelism one{.threads = 1, .in_turn_part_bytes = kMiB};
  EXPECT_EQ(InTurnPartCount(2 * kMiB - 1, one), 1u);
  EXPECT_EQ(InTurnPartCount(0, one), 1u);
  EXPECT_EQ(InTurnPartCount(100 * kMiB, {.in_turn_part_bytes = 0}), 1u);
  EXPECT_EQ(InTurnPartCount(simdjson::SIMDJSON_MAXSIZE_BYTES + 1, one), 1u);
}

// In turn: the parts' texts one after another into one trace, with one call.
TEST(EventPartReaderTest, InTurnReadsThePartsInOrderIntoOneTrace) {
  TraceFileBuffer buffer = Load(kFourEvents);
  FakePartParser parser;
  EventPartReader reader;
  std::optional<EventPartReader::Result> read =
      reader.Read(buffer, "test.json", 2, kNoEventLimit, parser,
                  EventPartReader::Schedule::kInTurn);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->parts, 2u);
  EXPECT_EQ(parser.in_turn_calls(), 1);
  EXPECT_EQ(parser.part_texts().size(), 2u);
  EXPECT_THAT(Names(read->trace), ElementsAre("a", "b", "c", "d"));
  EXPECT_THAT(read->trace.events.arg_begin, ElementsAre(0, 0, 0, 0, 0));
  EXPECT_EQ(read->trace.metadata.trace_name, "from the outside text");
  EXPECT_EQ(buffer.json(), kFourEvents);
}

TEST(EventPartReaderTest, InTurnFailingPartGivesNothingAndTheTextBack) {
  const std::string text = R"({"traceEvents": [
  {"name": "a", "ts": 1},
  {"name": "fail", "ts": 2},
  {"name": "c", "ts": 3},
  {"name": "d", "ts": 4}
]}
)";
  TraceFileBuffer buffer = Load(text);
  FakePartParser parser;
  EventPartReader reader;
  EXPECT_FALSE(reader.Read(buffer, "test.json", 2, kNoEventLimit, parser,
                           EventPartReader::Schedule::kInTurn));
  EXPECT_EQ(parser.part_texts().size(), 1u);  // stopped at the failing part
  EXPECT_EQ(buffer.json(), text);
}

TEST(EventPartReaderTest, ReadsThePartsInOrder) {
  TraceFileBuffer buffer = Load(kFourEvents);
  FakePartParser parser;
  EventPartReader reader;
  std::optional<EventPartReader::Result> read =
      reader.Read(buffer, "test.json", 2, kNoEventLimit, parser);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->parts, 2u);
  EXPECT_THAT(Names(read->trace), ElementsAre("a", "b", "c", "d"));
  EXPECT_THAT(read->trace.events.start_ns, ElementsAre(1, 2, 3, 4));
  EXPECT_THAT(read->trace.events.arg_begin, ElementsAre(0, 0, 0, 0, 0));
}

// The array runs from its '[' at byte 16 to its ']' at byte 121; its middle,
// byte 68, is the comma after b's '}'. The cut's comma becomes the first
// part's ']', the blank before c's '{' the second part's '['.
TEST(EventPartReaderTest, CutsInPlaceBetweenTwoEventLines) {
  TraceFileBuffer buffer = Load(kFourEvents);
  FakePartParser parser;
  EventPartReader reader;
  ASSERT_TRUE(reader.Read(buffer, "test.json", 2, kNoEventLimit, parser));
  EXPECT_THAT(parser.part_texts(),
              UnorderedElementsAre("[\n  {\"name\": \"a\", \"ts\": 1},\n"
                                   "  {\"name\": \"b\", \"ts\": 2}]",
                                   "[{\"name\": \"c\", \"ts\": 3},\n"
                                   "  {\"name\": \"d\", \"ts\": 4}\n]"));
}

TEST(EventPartReaderTest, TextAroundTheArrayIsReadWithAnEmptyArray) {
  TraceFileBuffer buffer = Load(kFourEvents);
  FakePartParser parser;
  EventPartReader reader;
  std::optional<EventPartReader::Result> read =
      reader.Read(buffer, "test.json", 2, kNoEventLimit, parser);
  ASSERT_TRUE(read.has_value());
  EXPECT_THAT(parser.outside_texts(),
              ElementsAre("{\"traceEvents\": [], \"traceName\": \"t\"}\n"));
  EXPECT_EQ(read->trace.metadata.trace_name, "from the outside text");
  EXPECT_EQ(read->trace.metadata.source, "test.json");
}

TEST(EventPartReaderTest, TextIsWholeAgainAfterARead) {
  TraceFileBuffer buffer = Load(kFourEvents);
  FakePartParser parser;
  EventPartReader reader;
  ASSERT_TRUE(reader.Read(buffer, "test.json", 2, kNoEventLimit, parser));
  EXPECT_EQ(buffer.json(), kFourEvents);
}

// Names first seen in a later part get the ids one pass gives them: in order
// of first appearance, x = 1, y = 2, z = 3 (0 is the empty string).
TEST(EventPartReaderTest, ThreePartsInternNamesAsOnePass) {
  TraceFileBuffer buffer = Load(R"({"traceEvents": [
  {"name": "x", "ts": 1},
  {"name": "y", "ts": 2},
  {"name": "x", "ts": 3},
  {"name": "z", "ts": 4},
  {"name": "y", "ts": 5},
  {"name": "x", "ts": 6}
]}
)");
  FakePartParser parser;
  EventPartReader reader;
  std::optional<EventPartReader::Result> read =
      reader.Read(buffer, "test.json", 3, kNoEventLimit, parser);
  ASSERT_TRUE(read.has_value());
  // Each third of the array holds two lines: a line start follows each of the
  // two dividing points.
  EXPECT_EQ(read->parts, 3u);
  EXPECT_THAT(Names(read->trace), ElementsAre("x", "y", "x", "z", "y", "x"));
  std::vector<uint32_t> ids;
  for (StringId id : read->trace.events.name) ids.push_back(id.value);
  EXPECT_THAT(ids, ElementsAre(1, 2, 1, 3, 2, 1));
  EXPECT_EQ(read->trace.strings.size(), 4u);
}

TEST(EventPartReaderTest, ReaderIsReusedForTheNextFile) {
  FakePartParser parser;
  EventPartReader reader;
  TraceFileBuffer first = Load(kFourEvents);
  ASSERT_TRUE(reader.Read(first, "first.json", 2, kNoEventLimit, parser));
  TraceFileBuffer second = Load(R"({"traceEvents": [
  {"name": "e", "ts": 5},
  {"name": "f", "ts": 6}
]}
)");
  std::optional<EventPartReader::Result> read =
      reader.Read(second, "second.json", 2, kNoEventLimit, parser);
  ASSERT_TRUE(read.has_value());
  EXPECT_THAT(Names(read->trace), ElementsAre("e", "f"));
  EXPECT_EQ(read->trace.metadata.source, "second.json");
}

TEST(EventPartReaderTest, OneLineArrayGivesNoCutAndNoRead) {
  TraceFileBuffer buffer = Load(
      R"({"traceEvents": [{"name": "a", "ts": 1}, {"name": "b", "ts": 2}]})");
  FakePartParser parser;
  EventPartReader reader;
  EXPECT_FALSE(reader.Read(buffer, "test.json", 2, kNoEventLimit, parser));
  EXPECT_THAT(parser.outside_texts(), IsEmpty());
  EXPECT_THAT(parser.part_texts(), IsEmpty());
}

TEST(EventPartReaderTest, FailingPartGivesNothingAndTheTextBack) {
  const std::string text = R"({"traceEvents": [
  {"name": "a", "ts": 1},
  {"name": "b", "ts": 2},
  {"name": "c", "ts": 3},
  {"name": "fail", "ts": 4}
]}
)";
  TraceFileBuffer buffer = Load(text);
  FakePartParser parser;
  EventPartReader reader;
  EXPECT_FALSE(reader.Read(buffer, "test.json", 2, kNoEventLimit, parser));
  EXPECT_EQ(parser.part_texts().size(), 2u);  // both parts were parsed
  EXPECT_EQ(buffer.json(), text);
}

TEST(EventPartReaderTest, FailingPrepareGivesNothingAndTheTextBack) {
  TraceFileBuffer buffer = Load(kFourEvents);
  FakePartParser parser;
  parser.fail_prepare = true;
  EventPartReader reader;
  EXPECT_FALSE(reader.Read(buffer, "test.json", 2, kNoEventLimit, parser));
  EXPECT_THAT(parser.part_texts(), IsEmpty());
  EXPECT_EQ(buffer.json(), kFourEvents);
}

// Then the guessed array was not the event array: the parts are not parsed.
TEST(EventPartReaderTest, EventInTheOutsideTextGivesNothing) {
  TraceFileBuffer buffer = Load(kFourEvents);
  FakePartParser parser;
  parser.event_outside = true;
  EventPartReader reader;
  EXPECT_FALSE(reader.Read(buffer, "test.json", 2, kNoEventLimit, parser));
  EXPECT_THAT(parser.part_texts(), IsEmpty());
}

TEST(EventPartReaderTest, EventArrayElsewhereThanTheCutGivesNothing) {
  TraceFileBuffer buffer = Load(kFourEvents);
  FakePartParser parser;
  parser.shift_events_offset = 1;
  EventPartReader reader;
  EXPECT_FALSE(reader.Read(buffer, "test.json", 2, kNoEventLimit, parser));
  EXPECT_THAT(parser.part_texts(), IsEmpty());
}

// One pass fails past max_events, even on an event it would drop; at the limit
// the parts cannot tell.
TEST(EventPartReaderTest, ReachingMaxEventsGivesNothing) {
  FakePartParser parser;
  EventPartReader reader;
  TraceFileBuffer buffer = Load(kFourEvents);
  EXPECT_FALSE(reader.Read(buffer, "test.json", 2, /*max_events=*/4, parser));
  std::optional<EventPartReader::Result> under =
      reader.Read(buffer, "test.json", 2, /*max_events=*/5, parser);
  ASSERT_TRUE(under.has_value());
  EXPECT_EQ(under->trace.events.size(), 4u);
}

}  // namespace
}  // namespace profdiff::trace
