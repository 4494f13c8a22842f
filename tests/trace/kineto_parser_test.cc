// The document pass of the Kineto reader (kineto_parser.cc): which kind of
// document a text is, and the errors that say what is wrong with one that is
// not a trace, cut short or not JSON, naming a byte.
#include <absl/strings/str_cat.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/trace/kineto_read.h"
#include "trace/kineto_reader.h"

namespace profdiff::trace {
namespace {

using ::testing::HasSubstr;

TEST(KinetoParserTest, ReadsLegacyBareArray) {
  const Trace trace = MustRead(R"([
    {"name": "aten::relu", "ph": "X", "ts": 10, "dur": 4, "tid": 1, "pid": "CPU functions", "args": {}},
    {"name": "aten::mul", "ph": "X", "ts": 20, "dur": 2, "tid": 1, "pid": "CPU functions", "args": {}}
  ])");
  ASSERT_EQ(trace.events.size(), 2u);
  EXPECT_EQ(trace.events.kind[0], EventKind::kCpuOp);
  EXPECT_LT(trace.events.pid[0], 0);  // a named pid gets a stable synthetic id
  EXPECT_EQ(trace.events.pid[0], trace.events.pid[1]);
  EXPECT_EQ(trace.metadata.source_format, SourceFormat::kLegacyJson);
}

TEST(KinetoParserTest, InvalidJsonIsInvalidArgument) {
  const absl::Status status =
      ReadError(R"({"traceEvents": [{"ph": "X", "ts": 1, "dur": 1,,}]})");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("bad.json"));
}

TEST(KinetoParserTest, TruncatedJsonIsInvalidArgument) {
  const std::string json(kModernTrace.substr(0, kModernTrace.size() / 2));
  const absl::Status status = ReadError(json);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("bad.json"));
}

TEST(KinetoParserTest, CutAndNonJsonFilesSayWhatTheyAre) {
  const std::string events =
      R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 1},)"
      R"( {"ph": "X", "name": "b", "ts": 3, "dur": 1})";
  // Cut inside a string, after an event, and after the event's comma.
  EXPECT_THAT(ReadError(events.substr(0, 70)).message(),
              HasSubstr("truncated at byte 70 of the document (it ends inside "
                        "a string"));
  EXPECT_THAT(ReadError(events).message(),
              HasSubstr(absl::StrCat("truncated at byte ", events.size(),
                                     " of the document (after event #")));
  EXPECT_THAT(ReadError(events + ",").message(),
              HasSubstr("truncated at byte"));
  // A PNG renamed .json, and a file of blanks.
  EXPECT_THAT(
      ReadError(std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16)).message(),
      HasSubstr("not JSON (starts with bytes 89 50 4e 47 0d 0a 1a 0a)"));
  EXPECT_THAT(ReadError("  \n").message(),
              HasSubstr("no JSON (3 bytes of white space)"));
  // A real syntax error inside the document keeps its position.
  EXPECT_THAT(
      ReadError(R"({"traceEvents": [{"ph": "X" "name": "a"}]})").message(),
      HasSubstr("event #0 (byte 28): invalid JSON"));
}

TEST(KinetoParserTest, InvalidUtf8NamesItsByteOffset) {
  std::string json = R"({"traceEvents": [{"ph": "X", "name": "caf)";
  json += '\xe9';  // Latin-1 é: not UTF-8
  json += R"(", "ts": 1, "dur": 1}]})";
  const absl::Status status = ReadError(json);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  // `{"traceEvents": [` (17) + `{"ph": "X", ` (12) + `"name": "caf` (12) =
  // byte 41.
  EXPECT_THAT(status.message(), HasSubstr("byte 41: invalid UTF-8"));
}

TEST(KinetoParserTest, ScalarDocumentIsNeitherObjectNorArray) {
  const absl::Status status = ReadError("42");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("bad.json: expected a JSON object with "
                        "\"traceEvents\" or an array of events"));
}

TEST(KinetoParserTest, ContentAfterTheTraceNamesItsByte) {
  constexpr std::string_view kJson =
      R"([{"ph": "X", "name": "a", "ts": 1, "dur": 1}] [])";
  const absl::Status status = ReadError(kJson);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr(absl::StrCat("bad.json: byte ", kJson.find(" []") + 1,
                                     ": unexpected content after the trace")));
}

TEST(KinetoParserTest, TopLevelObjectIsKinetoFormat) {
  EXPECT_EQ(MustRead(R"({"traceEvents": []})").metadata.source_format,
            SourceFormat::kKinetoJson);
}

TEST(KinetoParserTest, OnlyFilesThatAreNoTraceAtAllAreNotATrace) {
  EXPECT_TRUE(IsNotATrace(ReadError("GIF89a")));
  EXPECT_TRUE(IsNotATrace(ReadError(R"({"model": "resnet50"})")));
  EXPECT_FALSE(IsNotATrace(ReadError(R"({"traceEvents": [)")));
  EXPECT_FALSE(IsNotATrace(ReadError(R"({"traceEvents": [{"ts": 1}]})")));
  EXPECT_FALSE(IsNotATrace(absl::OkStatus()));
}

}  // namespace
}  // namespace profdiff::trace
