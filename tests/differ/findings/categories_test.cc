// The step breakdown (differ/findings/categories.h): categories that explain
// at least 10% of the step's change, communication a finding of its own.
#include "differ/findings/categories.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(CategoriesTest, CategoriesAndCommunicationThatExplainTenPercent) {
  Rank a = Model(100, 100), b = Model(150, 100);
  a.communication_us = 100;
  b.communication_us = 400;
  b.step_us += 300;
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  const v1::Finding* category = FirstOf(report, v1::FINDING_KIND_CATEGORY);
  ASSERT_NE(category, nullptr) << Texts(report);
  EXPECT_THAT(category->text(),
              HasSubstr("By category (share of the step-time change): CPU Exec "
                        "+150 us per step (33%)."));
  const v1::Finding* comm = FirstOf(report, v1::FINDING_KIND_COMMUNICATION);
  ASSERT_NE(comm, nullptr) << Texts(report);
  EXPECT_EQ(comm->text(),
            "Communication 100 us -> 400 us per step (+300 us, +300%), 67% of "
            "the step-time change.");
}

TEST(CategoriesTest, ACategoryUnderTenPercentOfTheChangeIsNotNamed) {
  // Communication +10 us of a +160 us step: 6%.
  Rank a = Model(100, 100), b = Model(150, 100);
  a.communication_us = 100;
  b.communication_us = 110;
  b.step_us += 10;
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  const v1::Finding* category = FirstOf(report, v1::FINDING_KIND_CATEGORY);
  ASSERT_NE(category, nullptr) << Texts(report);
  EXPECT_THAT(category->text(), Not(HasSubstr("Communication")));
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_COMMUNICATION), nullptr)
      << Texts(report);
}

TEST(CategoriesTest, NoCategoryWhenNothingChanged) {
  Rank a = Model(100, 100);
  a.communication_us = 100;
  a.step_us += 100;
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", a));
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_CATEGORY), nullptr)
      << Texts(report);
}

}  // namespace
}  // namespace profdiff::differ::testing
