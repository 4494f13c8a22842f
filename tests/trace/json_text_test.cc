// The reader's lexing of raw JSON text: key text in place, trailing space,
// nesting depth, compacting, quoted integers and the first invalid UTF-8 byte.
#include "trace/json_text.h"

#include <cstdint>
#include <string>

#include <gtest/gtest.h>

namespace profdiff::trace {
namespace {

// Raw key text as simdjson hands it over: after the opening quote, with the
// rest of the input and padding behind it.
std::string Padded(std::string_view text) {
  std::string padded(text);
  padded.append(64, ' ');
  return padded;
}

TEST(JsonTextTest, RawKeyIsNeedsTheClosingQuote) {
  const std::string ts = Padded(R"(ts": 1)");
  EXPECT_TRUE(RawKeyIs(ts.data(), "ts"));
  EXPECT_TRUE(RawKeyIsLiteral(ts.data(), "ts"));
  // "tsx" starts like "ts" but is another key.
  const std::string tsx = Padded(R"(tsx": 1)");
  EXPECT_FALSE(RawKeyIs(tsx.data(), "ts"));
  EXPECT_FALSE(RawKeyIsLiteral(tsx.data(), "ts"));
  EXPECT_FALSE(RawKeyIs(ts.data(), "tid"));
  EXPECT_FALSE(RawKeyIsLiteral(ts.data(), "tid"));
}

// \u0074s is "ts" once unescaped: in place it is another spelling.
TEST(JsonTextTest, EscapedKeyDoesNotMatchItsPlainName) {
  const std::string escaped = Padded(R"(\u0074s": 1)");
  EXPECT_FALSE(RawKeyIs(escaped.data(), "ts"));
  EXPECT_FALSE(RawKeyIsLiteral(escaped.data(), "ts"));
}

TEST(JsonTextTest, RawKeyTextEndsAtTheUnescapedQuote) {
  EXPECT_EQ(RawKeyText(Padded(R"(name": "x")").data()), "name");
  EXPECT_EQ(RawKeyText(Padded(R"(a\"b": 1)").data()), R"(a\"b)");
  EXPECT_EQ(RawKeyText(Padded(R"(a\\": 1)").data()), R"(a\\)");
  EXPECT_EQ(RawKeyText(Padded(R"(": 1)").data()), "");
}

TEST(JsonTextTest, TrimTrailingSpaceRemovesOnlyTrailingJsonWhitespace) {
  EXPECT_EQ(TrimTrailingSpace("12 \n\t\r"), "12");
  EXPECT_EQ(TrimTrailingSpace("  \"a b\"  "), "  \"a b\"");
  EXPECT_EQ(TrimTrailingSpace(" \n"), "");
  EXPECT_EQ(TrimTrailingSpace(""), "");
  // A form feed is not JSON whitespace.
  EXPECT_EQ(TrimTrailingSpace("1\f"), "1\f");
}

TEST(JsonTextTest, NestingDepthCountsArraysAndObjects) {
  EXPECT_EQ(JsonNestingDepth("12"), 0u);
  EXPECT_EQ(JsonNestingDepth("[]"), 1u);
  EXPECT_EQ(JsonNestingDepth("[[2, 3], [3, 4]]"), 2u);
  // [ [ { "a": [ : four deep; the later [] is only two.
  EXPECT_EQ(JsonNestingDepth(R"([[1, {"a": [2]}], []])"), 4u);
}

TEST(JsonTextTest, NestingDepthSkipsBracketsInStrings) {
  EXPECT_EQ(JsonNestingDepth(R"(["[[[", "{{"])"), 1u);
  // The escaped quote does not end the string: its brackets still do not
  // count.
  EXPECT_EQ(JsonNestingDepth(R"(["\"[[", 1])"), 1u);
}

TEST(JsonTextTest, CompactJsonDropsWhitespaceOutsideStrings) {
  std::string out = "left over";
  CompactJson("[[1, 3],\n [] ]", out);
  EXPECT_EQ(out, "[[1,3],[]]");
  CompactJson("{\"a b\" :\t[\"c d\"]}", out);
  EXPECT_EQ(out, "{\"a b\":[\"c d\"]}");
}

TEST(JsonTextTest, CompactJsonKeepsEscapedQuotesInsideStrings) {
  std::string out;
  // The string is "x\" y": its space is inside it and stays.
  CompactJson(R"([ "x\" y" , 2 ])", out);
  EXPECT_EQ(out, R"(["x\" y",2])");
}

TEST(JsonTextTest, ParseIntegerTextReadsDecimalAndHex) {
  int64_t value = 0;
  EXPECT_TRUE(ParseIntegerText("256", &value));
  EXPECT_EQ(value, 256);
  EXPECT_TRUE(ParseIntegerText("-17", &value));
  EXPECT_EQ(value, -17);
  EXPECT_TRUE(ParseIntegerText("0x1F", &value));
  EXPECT_EQ(value, 31);  // 1 * 16 + 15
  EXPECT_TRUE(ParseIntegerText("0X10", &value));
  EXPECT_EQ(value, 16);
  EXPECT_TRUE(ParseIntegerText("0x0", &value));
  EXPECT_EQ(value, 0);
  EXPECT_TRUE(ParseIntegerText("9223372036854775807", &value));
  EXPECT_EQ(value, INT64_MAX);
}

TEST(JsonTextTest, ParseIntegerTextRefusesAnythingElse) {
  int64_t value = 0;
  EXPECT_FALSE(ParseIntegerText("", &value));
  EXPECT_FALSE(ParseIntegerText("0x", &value));
  EXPECT_FALSE(ParseIntegerText("12a", &value));
  EXPECT_FALSE(ParseIntegerText(" 12", &value));
  EXPECT_FALSE(ParseIntegerText("1.5", &value));
  EXPECT_FALSE(ParseIntegerText("N/A", &value));
  EXPECT_FALSE(ParseIntegerText("9223372036854775808", &value));  // 2^63
}

TEST(JsonTextTest, FirstInvalidUtf8AcceptsWellFormedText) {
  EXPECT_EQ(FirstInvalidUtf8(""), 0u);
  EXPECT_EQ(FirstInvalidUtf8("abc"), 3u);
  // é (2 bytes), € (3 bytes), U+1F600 (4 bytes): 1 + 2 + 3 + 4 = 10 bytes.
  EXPECT_EQ(FirstInvalidUtf8("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), 10u);
}

TEST(JsonTextTest, FirstInvalidUtf8FindsTheBadByte) {
  EXPECT_EQ(FirstInvalidUtf8("ab\xff"), 2u);      // never a lead byte
  EXPECT_EQ(FirstInvalidUtf8("a\x80"), 1u);       // continuation without lead
  EXPECT_EQ(FirstInvalidUtf8("a\xc3\x41z"), 1u);  // lead, then no continuation
  EXPECT_EQ(FirstInvalidUtf8("ab\xe2\x82"), 2u);  // cut short at the end
}

}  // namespace
}  // namespace profdiff::trace
