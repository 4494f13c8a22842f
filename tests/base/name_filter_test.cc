// --filter patterns come from users and, through DiffRequest, from remote
// clients: matching must take time linear in the name and no stack per byte,
// whatever the pattern.
#include "base/name_filter.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace profdiff::base {
namespace {

using ::testing::HasSubstr;

TEST(NameFilterTest, MatchesAnywhereInTheName) {
  absl::StatusOr<NameFilter> filter = NameFilter::Compile("^aten::a");
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_TRUE(filter->Matches("aten::add"));
  EXPECT_FALSE(filter->Matches("x aten::add"));
  EXPECT_TRUE(NameFilter::Compile("conv")->Matches("aten::conv2d"));
  EXPECT_TRUE(NameFilter::Compile("")->Matches("anything"));
}

// A backtracking engine (std::regex) takes exponential time on these, and
// recurses once per byte of a 1 MB name (a stack overflow); RE2 answers at
// once.
TEST(NameFilterTest, PathologicalPatternsOnHugeNamesAnswerAtOnce) {
  const std::string name(1 << 20, 'a');
  for (const char* pattern : {"(a|aa)*c", "(a*)*b", "^(a+)+$", "(.*)*x"}) {
    absl::StatusOr<NameFilter> filter = NameFilter::Compile(pattern);
    ASSERT_TRUE(filter.ok()) << pattern << ": " << filter.status();
    EXPECT_EQ(filter->Matches(name), std::string(pattern) == "^(a+)+$")
        << pattern;
  }
}

TEST(NameFilterTest, BadOrOversizedPatternsAreInvalidArgumentNamingThem) {
  absl::StatusOr<NameFilter> bad = NameFilter::Compile("(");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("--filter ("));
  absl::StatusOr<NameFilter> huge =
      NameFilter::Compile(std::string(NameFilter::kMaxPatternBytes + 1, 'a'));
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(huge.status().message(), HasSubstr("the limit is 4096"));
}

}  // namespace
}  // namespace profdiff::base
