#include "trace/decimal_time.h"

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
