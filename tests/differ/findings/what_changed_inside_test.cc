// What changed inside (differ/findings/what_changed_inside.h): the operators
// and kernels that changed most inside the walk's module, or across the step,
// in the change's direction only.
#include "differ/findings/what_changed_inside.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "profdiff/v1/diff.pb.h"
#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ::testing {
namespace {

using ::testing::HasSubstr;

TEST(WhatChangedInsideTest, WhatNamesTheOperatorsInsideTheModule) {
  const v1::DiffReport report =
      Diff(Profile("a", Model(100, 100)), Profile("b", Model(400, 110)));
  const v1::Finding* what = FirstOf(report, v1::FINDING_KIND_OPERATOR);
  ASSERT_NE(what, nullptr) << Texts(report);
  EXPECT_THAT(what->text(), HasSubstr("Inside Linear_0, the operators that "
                                      "changed most per step (self time): "
                                      "aten::addmm +300 us."));
  ASSERT_EQ(what->evidence_size(), 1);
  EXPECT_EQ(what->evidence(0).table(), v1::EVIDENCE_TABLE_OPERATORS);
  EXPECT_EQ(what->evidence(0).index_path(), "0/0");  // Model_0/Linear_0
  // `--path 0/0` prints that row.
  v1::DiffOptions scoped;
  scoped.set_path(what->evidence(0).index_path());
  const v1::DiffReport inside = Diff(Profile("a", Model(100, 100)),
                                     Profile("b", Model(400, 110)), scoped);
  ASSERT_GE(inside.operators_size(), 1);
  EXPECT_EQ(inside.operators(0).name(), "aten::addmm");
  EXPECT_DOUBLE_EQ(inside.operators(0).delta().host_total_us(),
                   what->evidence(0).delta());
}

// One module whose operators moved apart: aten::addmm by `addmm`, aten::relu
// by `relu`, per step.
Rank LinearWith(double addmm, double relu) {
  Rank r;
  r.modules = {{"Model_0",
                addmm + relu,
                {{"Linear_0",
                  addmm + relu,
                  {},
                  {{"aten::addmm", addmm}, {"aten::relu", relu}}}}}};
  r.operators = {{"aten::addmm", addmm}, {"aten::relu", relu}};
  r.step_us = addmm + relu;
  return r;
}

TEST(WhatChangedInsideTest, AnOperatorAgainstTheModulesChangeIsNotNamed) {
  // Linear_0 grew 260 us: aten::addmm +300, aten::relu -40 (more than the
  // 10% of the largest that a list needs, but the other way).
  const v1::DiffReport report = Diff(Profile("a", LinearWith(100, 100)),
                                     Profile("b", LinearWith(400, 60)));
  const v1::Finding* what = FirstOf(report, v1::FINDING_KIND_OPERATOR);
  ASSERT_NE(what, nullptr) << Texts(report);
  EXPECT_EQ(what->text(),
            "Inside Linear_0, the operators that changed most per step (self "
            "time): aten::addmm +300 us.");
  EXPECT_EQ(what->evidence_size(), 1);
}

TEST(WhatChangedInsideTest, WithoutModulesTheListIsAcrossTheStep) {
  Rank a, b;
  a.operators = {{"aten::mm", 100, 2}, {"aten::relu", 100}};
  b.operators = {{"aten::mm", 400, 2}, {"aten::relu", 100}};
  a.step_us = 200;
  b.step_us = 500;
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  const v1::Finding* what = FirstOf(report, v1::FINDING_KIND_OPERATOR);
  ASSERT_NE(what, nullptr) << Texts(report);
  EXPECT_EQ(what->text(),
            "Across the step, the operators that changed most per step (self "
            "time): aten::mm +300 us.");
}

TEST(WhatChangedInsideTest, NothingChangedNamesNoOperator) {
  const v1::DiffReport report = Diff(Profile("a", LinearWith(100, 100)),
                                     Profile("b", LinearWith(100, 100)));
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_OPERATOR), nullptr)
      << Texts(report);
}

}  // namespace
}  // namespace profdiff::differ::testing
