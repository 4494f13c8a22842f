// What ran changed (differ/findings/operators_that_ran.h): operators that ran
// on one side only, and call counts that moved while the modules did not.
#include "differ/findings/operators_that_ran.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(OperatorsThatRanTest, OperatorsRanOnOneSideAreNamedAsReplaced) {
  Rank a, b;
  a.modules = b.modules = {{"Loss_0", 300}};
  a.step_us = b.step_us = 300;
  a.operators = {{"aten::exp", 100},
                 {"aten::div", 80},
                 {"aten::log", 60},
                 {"aten::max", 40},
                 {"ExpBackward0", 90}};
  b.operators = {{"aten::cross_entropy_loss", 10, 1, 300},
                 {"aten::log_softmax", 150},
                 {"aten::nll_loss", 140},
                 {"NllLossBackward0", 30}};
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  const v1::Finding* ops = FirstOf(report, v1::FINDING_KIND_STRUCTURE);
  ASSERT_NE(ops, nullptr) << Texts(report);
  EXPECT_EQ(ops->text(),
            "Operators that ran changed: aten::exp, aten::div, aten::log and "
            "2 more replaced by aten::cross_entropy_loss, aten::log_softmax, "
            "aten::nll_loss and 1 more.");
  // Self times: +330 added, -370 deleted.
  EXPECT_DOUBLE_EQ(ops->delta_us(), -40);
}

TEST(OperatorsThatRanTest, CallCountsThatMovedWhileTheModulesDidNotAreNamed) {
  Rank a = Model(100, 100), b = Model(100, 100);
  a.operators.push_back({"aten::_to_copy", 10, 2});
  b.operators.push_back({"aten::_to_copy", 90, 6});
  b.operators.push_back({"ToCopyBackward0", 50, 2});
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  const v1::Finding* ops = FirstOf(report, v1::FINDING_KIND_STRUCTURE);
  ASSERT_NE(ops, nullptr) << Texts(report);
  EXPECT_EQ(ops->text(),
            "Operators that ran changed: ToCopyBackward0 (dtype conversion) "
            "newly ran; calls per step of aten::_to_copy 2 -> 6.");
}

TEST(OperatorsThatRanTest, CallCountsFollowingAddedModulesAreNotRepeated) {
  Rank a, b;
  a.modules = {{"Stage_0", 200, {{"Block_0", 200}}}};
  b.modules = {{"Stage_0", 400, {{"Block_0", 200}, {"Block_1", 200}}}};
  a.step_us = 200;
  b.step_us = 400;
  a.operators = {{"aten::conv2d", 200, 1}};
  b.operators = {{"aten::conv2d", 400, 2}};
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  EXPECT_THAT(Texts(report), Not(HasSubstr("Operators that ran changed")));
  EXPECT_THAT(Texts(report), HasSubstr("1 Block added"));
}

}  // namespace
}  // namespace profdiff::differ::testing
