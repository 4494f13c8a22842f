// What an (unknown) block holds (differ/findings/unknown_time.h): when the
// change is outside every module, the finding names the operators that ran
// there, never "(unknown)" alone.
#include "differ/findings/unknown_time.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A model whose step has `outside` us of operators outside its one module:
// the input's copy and a loss.
Rank StepWith(double copy_us, double loss_us) {
  Rank r;
  r.modules = {Node{"Model_0", 500, {}, {{"aten::mm", 500}}}};
  r.operators = {
      {"aten::mm", 500}, {"aten::copy_", copy_us}, {"aten::nll_loss", loss_us}};
  r.step_us = 500 + copy_us + loss_us;
  return r;
}

// Regression for #43: "(unknown)" is never a finding by itself.
TEST(UnknownTimeTest, TimeOutsideEveryModuleIsSaidByWhatRanThere) {
  const v1::DiffReport report =
      Diff(Profile("a", StepWith(100, 20)), Profile("b", StepWith(700, 20)));
  const v1::Finding* f = FirstOf(report, v1::FINDING_KIND_MODULE);
  ASSERT_NE(f, nullptr) << Texts(report);
  // The step's +600 us, all in aten::copy_ outside Model_0.
  EXPECT_EQ(f->text(),
            "600 us per step more outside every module, 100% of the "
            "step-time change: aten::copy_ +600 us of self time outside "
            "every module.");
  EXPECT_THAT(Texts(report), Not(HasSubstr("(unknown)")));
}

}  // namespace
}  // namespace profdiff::differ::testing
