// The words and numbers of the differ's sentences (differ/sentence_parts.h):
// durations, percentages, shares, sizes, bandwidths, names and name lists.
#include "differ/sentence_parts.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace profdiff::differ {
namespace {

TEST(SentencePartsTest, NumbersAndNames) {
  EXPECT_EQ(Duration(850), "850 us");
  EXPECT_EQ(Duration(7605.6), "7.6 ms");
  EXPECT_EQ(Duration(1.317e6), "1.32 s");
  EXPECT_EQ(SignedDuration(-0.4), "-0.4 us");
  EXPECT_EQ(SignedDuration(0), "0 us");
  EXPECT_EQ(ChangePercent(100, 2297), "+2197%");
  EXPECT_EQ(ChangePercent(100, 94.3), "-5.7%");
  EXPECT_EQ(ChangePercent(0, 5), "new");
  EXPECT_EQ(ChangePercent(5, 0), "gone");
  EXPECT_EQ(Share(0.004), "<1%");
  EXPECT_EQ(NameList({"a", "b", "c", "d", "e"}, 3), "a, b, c and 2 more");
  EXPECT_EQ(NameList({"a", "b"}, 3), "a and b");
  EXPECT_EQ(ShortName("void at::native::(anonymous namespace)::cunn_SoftMax"
                      "Forward<8, float>(float*, float const*, int)"),
            "cunn_SoftMaxForward<8, float>");
  EXPECT_EQ(ShortName("aten::mm"), "mm");
  EXPECT_EQ(ShortName(std::string(80, 'k'), 10), "kkkkkkk...");
}

TEST(SentencePartsTest, DurationsPickTheUnitAtEachBoundary) {
  EXPECT_EQ(Duration(9.94), "9.9 us");
  EXPECT_EQ(Duration(10), "10 us");
  EXPECT_EQ(Duration(999), "999 us");
  EXPECT_EQ(Duration(1000), "1.0 ms");
  EXPECT_EQ(Duration(1e6), "1.00 s");
  // A negative duration prints its magnitude; the sign is SignedDuration's.
  EXPECT_EQ(Duration(-2500), "2.5 ms");
  EXPECT_EQ(SignedDuration(167100), "+167.1 ms");
  EXPECT_EQ(SignedDuration(-2e6), "-2.00 s");
}

TEST(SentencePartsTest, ChangePercentOfEqualAndZeroSides) {
  EXPECT_EQ(ChangePercent(0, 0), "0%");
  EXPECT_EQ(ChangePercent(42, 42), "0%");
  // From 100% on, no decimals.
  EXPECT_EQ(ChangePercent(100, 200), "+100%");
  EXPECT_EQ(ChangePercent(100, 150), "+50.0%");
  // Relative to the baseline's magnitude: a negative baseline that grows is
  // still an increase.
  EXPECT_EQ(ChangePercent(-10, -5), "+50.0%");
}

TEST(SentencePartsTest, SharesRoundToWholePercentButNeverToZero) {
  EXPECT_EQ(Share(0.6), "60%");
  EXPECT_EQ(Share(0), "0%");
  EXPECT_EQ(Share(-0.003), "<1%");
  EXPECT_EQ(Share(0.01), "1%");
  EXPECT_EQ(Share(1.25), "125%");
}

TEST(SentencePartsTest, BytesInMebibytesUntilAGibibyte) {
  constexpr double kMiB = 1024.0 * 1024.0;
  EXPECT_EQ(Bytes(512 * kMiB), "512.0 MiB");
  EXPECT_EQ(Bytes(1023.9 * kMiB), "1023.9 MiB");
  EXPECT_EQ(Bytes(1024 * kMiB), "1.00 GiB");
  EXPECT_EQ(Bytes(1.5 * 1024 * kMiB), "1.50 GiB");
  EXPECT_EQ(Bytes(-3 * kMiB), "-3.0 MiB");
  EXPECT_EQ(Bytes(0), "0.0 MiB");
}

TEST(SentencePartsTest, BandwidthHasThreeSignificantDigits) {
  EXPECT_EQ(Bandwidth(12.34), "12.3 GB/s");
  EXPECT_EQ(Bandwidth(0.4561), "0.456 GB/s");
  EXPECT_EQ(Bandwidth(123.4), "123 GB/s");
}

TEST(SentencePartsTest, ShortNameKeepsTemplateArgumentsAndShortNames) {
  // "::" inside template arguments is not a namespace.
  EXPECT_EQ(ShortName("at::native::vectorized<at::Half>(int)"),
            "vectorized<at::Half>");
  EXPECT_EQ(ShortName("void kernel"), "kernel");
  EXPECT_EQ(ShortName("gemm"), "gemm");
  EXPECT_EQ(ShortName(""), "");
}

TEST(SentencePartsTest, NameListOfNoneOneAndExactlyAsManyAsShown) {
  EXPECT_EQ(NameList({}, 3), "");
  EXPECT_EQ(NameList({"a"}, 3), "a");
  EXPECT_EQ(NameList({"a", "b", "c"}, 3), "a, b and c");
}

}  // namespace
}  // namespace profdiff::differ
