// The stable hash is 64-bit FNV-1a: its values are stored (state file names,
// span ids, ClickHouse name ids), so they are pinned here.
#include "base/stable_hash.h"

#include <string>

#include <gtest/gtest.h>

namespace profdiff::base {
namespace {

TEST(StableHashTest, EmptyInputIsTheOffsetBasis) {
  EXPECT_EQ(StableHash64(""), 0xcbf29ce484222325ull);
}

// The test vectors of the FNV reference (isthe.com/chongo/tech/comp/fnv).
TEST(StableHashTest, MatchesFnv1a64ReferenceVectors) {
  EXPECT_EQ(StableHash64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(StableHash64("foobar"), 0x85944171f73967e8ull);
}

// Bytes are taken unsigned: "\xff" XORs in 0xff, not a sign-extended
// 0xffffffffffffffff. All mod 2^64:
//   0xcbf29ce484222325 ^ 0xff = 0xcbf29ce4842223da = x
//   x * 0x100000001b3 = (x << 40) + x * 0x1b3
//                     = 0x2223da0000000000 + 0x8d40984c8602eb6e
//                     = 0xaf64724c8602eb6e
TEST(StableHashTest, HighBytesAreUnsigned) {
  EXPECT_EQ(StableHash64("\xff"), 0xaf64724c8602eb6eull);
}

// A hash that stopped at a NUL would give "a\0b" the value of "a".
TEST(StableHashTest, BytesAfterNulAreHashed) {
  EXPECT_NE(StableHash64(std::string("a\0b", 3)), StableHash64("a"));
}

TEST(StableHashTest, HexIsSixteenLowercaseDigits) {
  EXPECT_EQ(StableHashHex("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(StableHashHex(""), "cbf29ce484222325");
}

// FNV-1a64("10") = 0x07f89207b4ba08a4: its top digit is 0, kept.
TEST(StableHashTest, HexKeepsLeadingZeros) {
  EXPECT_EQ(StableHashHex("10"), "07f89207b4ba08a4");
}

}  // namespace
}  // namespace profdiff::base
