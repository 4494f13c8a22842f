// Alignment of sibling nodes (docs/semantics.md §7): optimal, order-preserving,
// time-weighted.
#include "differ/module_alignment.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::differ {
namespace {

std::vector<AlignItem> Items(const std::vector<std::string>& keys,
                             double weight = 1) {
  std::vector<AlignItem> items;
  items.reserve(keys.size());
  for (const std::string& k : keys) items.push_back({k, weight});
  return items;
}

// "a->b" for matches, "-a" removed, "+b" added, by key.
std::vector<std::string> Describe(const std::vector<AlignItem>& a,
                                  const std::vector<AlignItem>& b,
                                  const std::vector<AlignedPair>& pairs) {
  std::vector<std::string> out;
  for (const AlignedPair& p : pairs) {
    if (p.a >= 0 && p.b >= 0) {
      out.push_back(a[p.a].key + "=" + b[p.b].key);
    } else if (p.a >= 0) {
      out.push_back("-" + a[p.a].key);
    } else {
      out.push_back("+" + b[p.b].key);
    }
  }
  return out;
}

TEST(AlignChildrenTest, OneReorderedBlockKeepsTheRestMatched) {
  const auto a = Items({"X", "A", "B", "C"});
  const auto b = Items({"A", "B", "C", "X"});
  EXPECT_THAT(Describe(a, b, AlignChildren(a, b)),
              testing::ElementsAre("-X", "A=A", "B=B", "C=C", "+X"));
}

TEST(AlignChildrenTest, GreedyFirstMatchKeepsOnlyX) {
  // The plugin's greedy walk, which AlignChildren falls back to past its table
  // limit: X takes the X at the end, and A, B, C find nothing after it.
  const auto a = Items({"X", "A", "B", "C"});
  const auto b = Items({"A", "B", "C", "X"});
  EXPECT_THAT(Describe(a, b, AlignChildren(a, b, /*max_cells=*/0)),
              testing::ElementsAre("+A", "+B", "+C", "X=X", "-A", "-B", "-C"));
}

TEST(AlignChildrenTest, SixBlocksAgainstThirtySixMatchSixAndAddThirty) {
  // ResNet50 vs ResNet152 layer3: 6 vs 36 Bottleneck blocks (keys without
  // instance suffix).
  std::vector<std::string> a(6, "Bottleneck");
  std::vector<std::string> b(36, "Bottleneck");
  const auto ia = Items(a);
  const auto ib = Items(b);
  int matched = 0, added = 0, removed = 0;
  for (const AlignedPair& p : AlignChildren(ia, ib)) {
    matched += p.a >= 0 && p.b >= 0;
    added += p.a < 0;
    removed += p.b < 0;
  }
  EXPECT_EQ(matched, 6);
  EXPECT_EQ(added, 30);
  EXPECT_EQ(removed, 0);
}

TEST(AlignChildrenTest, AmongEqualMatchCountsPrefersTheMoreTime) {
  const std::vector<AlignItem> a = {{"X", 100}};
  const std::vector<AlignItem> b = {{"X", 1}, {"X", 90}};
  const auto pairs = AlignChildren(a, b);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].b, 0);  // the short X is the addition
  EXPECT_EQ(pairs[0].a, -1);
  EXPECT_EQ(pairs[1].a, 0);
  EXPECT_EQ(pairs[1].b, 1);
}

TEST(AlignChildrenTest, EveryIndexAppearsOnceInOrder) {
  const auto a = Items({"A", "B", "A", "C", "B", "D"});
  const auto b = Items({"B", "A", "C", "D", "A", "B", "E"});
  for (size_t cells : {size_t{0}, size_t{1} << 20}) {
    int next_a = 0, next_b = 0;
    for (const AlignedPair& p : AlignChildren(a, b, cells)) {
      if (p.a >= 0) {
        EXPECT_EQ(p.a, next_a++);
      }
      if (p.b >= 0) {
        EXPECT_EQ(p.b, next_b++);
      }
      if (p.a >= 0 && p.b >= 0) {
        EXPECT_EQ(a[p.a].key, b[p.b].key);
      }
    }
    EXPECT_EQ(next_a, 6);
    EXPECT_EQ(next_b, 7);
  }
}

TEST(AlignChildrenTest, LongestCommonSubsequenceLength) {
  // LCS of ABCBDAB and BDCABA is 4.
  const auto a = Items({"A", "B", "C", "B", "D", "A", "B"});
  const auto b = Items({"B", "D", "C", "A", "B", "A"});
  int matched = 0;
  for (const AlignedPair& p : AlignChildren(a, b))
    matched += p.a >= 0 && p.b >= 0;
  EXPECT_EQ(matched, 4);
}

TEST(ClassNameTest, DropsOnlyANumericInstanceSuffix) {
  EXPECT_EQ(ClassName("Linear_3"), "Linear");
  EXPECT_EQ(ClassName("Linear_70"), "Linear");
  EXPECT_EQ(ClassName("layer_norm"), "layer_norm");
  EXPECT_EQ(ClassName("Conv2d"), "Conv2d");
  EXPECT_EQ(ClassName("Block_"), "Block_");
  EXPECT_EQ(ClassName("_7"), "_7");
}

}  // namespace
}  // namespace profdiff::differ
