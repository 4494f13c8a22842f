#include "trace/decimal_time.h"

#include <string>

#include <gtest/gtest.h>

namespace profdiff::trace {
namespace {

int64_t Ns(std::string_view text) {
  int64_t ns = -42;
  EXPECT_TRUE(ParseMicrosAsNanos(text, &ns)) << text;
  return ns;
}

TEST(DecimalTimeTest, IntegerMicrosecondsBecomeNanoseconds) {
  EXPECT_EQ(Ns("1623142623460111"), 1623142623460111000);  // 2021 absolute µs
  EXPECT_EQ(Ns("0"), 0);
}

TEST(DecimalTimeTest, FractionDigitsAreExactNanoseconds) {
  EXPECT_EQ(Ns("1234.567"), 1234567);
  EXPECT_EQ(Ns("1234.5"), 1234500);
  // 6989.123 is 6989.1229999... as a double; the text gives the exact value.
  EXPECT_EQ(Ns("6989.123"), 6989123);
  EXPECT_EQ(Ns("1752181589589738.346"),
            1752181589589738346);  // beyond double precision
}

TEST(DecimalTimeTest, DigitsBelowANanosecondRoundHalfAwayFromZero) {
  EXPECT_EQ(Ns("1.0004"), 1000);
  EXPECT_EQ(Ns("1.0005"), 1001);
  EXPECT_EQ(Ns("-1.0005"), -1001);
  EXPECT_EQ(Ns("0.00049"), 0);
}

// Kineto's own spelling (integer digits, '.', three digits) takes a shorter
// path; it must agree with the general one at its edges.
TEST(DecimalTimeTest, KinetoSpellingIsExactAtItsEdges) {
  EXPECT_EQ(Ns("3605057436108.407"), 3605057436108407);
  EXPECT_EQ(Ns("0.000"), 0);
  EXPECT_EQ(Ns("7"), 7000);
  EXPECT_EQ(Ns("999999999999999.999"),
            999999999999999999);  // 15 integer digits: the short path
  EXPECT_EQ(Ns("1000000000000000"),
            1000000000000000000);   // 16: the general path
  EXPECT_EQ(Ns("12.3456"), 12346);  // 4 fraction digits: rounded there
  EXPECT_EQ(Ns(".123"), 123);
  EXPECT_EQ(Ns("1.2e3"), 1200000);
  EXPECT_EQ(Ns("-1.500"), -1500);
  int64_t ns = 0;
  EXPECT_FALSE(ParseMicrosAsNanos("9999999999999999.999",
                                  &ns));  // over int64 nanoseconds
  EXPECT_FALSE(ParseMicrosAsNanos("12a.456", &ns));
  EXPECT_FALSE(ParseMicrosAsNanos("12.4x6", &ns));
  EXPECT_FALSE(ParseMicrosAsNanos("", &ns));
}

// The short path reads the last eight of eight or more integer digits at once:
// every length gives its value, and a byte just outside '0'..'9' anywhere in
// them is refused, as the digit loop refuses it.
TEST(DecimalTimeTest, EightDigitsAtOnceAgreeWithTheDigitLoop) {
  const std::string digits = "987654321098765";
  for (size_t length = 1; length <= digits.size(); ++length) {
    const std::string integer = digits.substr(0, length);
    const int64_t expected = std::stoll(integer) * 1000 + 42;
    EXPECT_EQ(Ns(integer + ".042"), expected) << integer;
    for (size_t k = 0; k < length; ++k) {
      for (const char outside : {'/', ':', ' ', '-'}) {
        if (outside == '-' && k == 0) continue;  // a sign there is valid
        std::string text = integer + ".042";
        text[k] = outside;
        int64_t ns = 7;
        EXPECT_FALSE(ParseMicrosAsNanos(text, &ns)) << text;
        EXPECT_EQ(ns, 7) << text;
      }
    }
  }
}

TEST(DecimalTimeTest, ExponentsAreApplied) {
  EXPECT_EQ(Ns("1.5e3"), 1500000);
  EXPECT_EQ(Ns("25E-3"), 25);
}

TEST(DecimalTimeTest, RejectsWhatIsNotANumber) {
  int64_t ns = 7;
  EXPECT_FALSE(ParseMicrosAsNanos("N/A", &ns));
  EXPECT_FALSE(ParseMicrosAsNanos("", &ns));
  EXPECT_FALSE(ParseMicrosAsNanos("\"12\"", &ns));
  EXPECT_FALSE(ParseMicrosAsNanos("1.2.3", &ns));
  EXPECT_FALSE(
      ParseMicrosAsNanos("99999999999999999999", &ns));  // over int64 ns
  EXPECT_EQ(ns, 7);
}

TEST(DecimalTimeTest, FormatsThreeFractionDigits) {
  std::string out;
  AppendNanosAsMicros(1234567, out);
  out += " ";
  AppendNanosAsMicros(5, out);
  out += " ";
  AppendNanosAsMicros(-1500, out);
  EXPECT_EQ(out, "1234.567 0.005 -1.500");
}

}  // namespace
}  // namespace profdiff::trace
