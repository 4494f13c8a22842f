// "What changed" (differ/findings.h) assembled from its rules: at most
// kMaxFindings, the headline first, the same findings twice, findings that do
// not depend on the views or the path, none in HTA mode. Each rule's own
// tests are in tests/differ/findings/.
#include "differ/findings.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "differ/differ.h"
#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ {
namespace {

using testing::Diff;
using testing::Model;
using testing::Profile;
using testing::Rank;
using testing::Texts;

TEST(FindingsTest, AtMostSevenHeadlineFirstAndTheSameTwice) {
  Rank a = Model(100, 100), b = Model(400, 110);
  a.communication_us = 50;
  b.communication_us = 800;
  b.step_us += 750;
  a.peak_memory_bytes = 1 << 20;
  b.peak_memory_bytes = 4 << 20;
  a.operators.push_back({"aten::exp", 100});
  b.operators.push_back({"aten::softmax", 100});
  b.operators.push_back({"aten::_to_copy", 90, 6});
  a.operators.push_back({"aten::_to_copy", 10, 2});
  std::vector<Rank> ra(4, a), rb(4, b);
  rb[3].step_us *= 1.5;
  const v1::DiffReport first = Diff(Profile("a", ra), Profile("b", rb));
  const v1::DiffReport second = Diff(Profile("a", ra), Profile("b", rb));
  EXPECT_LE(first.findings_size(), kMaxFindings) << Texts(first);
  EXPECT_GE(first.findings_size(), 5) << Texts(first);
  EXPECT_EQ(first.findings(0).kind(), v1::FINDING_KIND_STEP_TIME);
  EXPECT_EQ(Texts(first), Texts(second));
}

TEST(FindingsTest, FindingsViewAndPathDoNotChangeTheFindings) {
  const auto a = Profile("a", Model(100, 100));
  const auto b = Profile("b", Model(400, 110));
  const v1::DiffReport all = Diff(a, b);
  v1::DiffOptions only;
  only.add_views(v1::DIFF_VIEW_FINDINGS);
  const v1::DiffReport findings = Diff(a, b, only);
  EXPECT_EQ(Texts(findings), Texts(all));
  EXPECT_FALSE(findings.has_modules());
  EXPECT_FALSE(findings.has_overview());
  EXPECT_EQ(findings.operators_size(), 0);
  v1::DiffOptions scoped;
  scoped.set_path("Model_0/Linear_1");
  scoped.set_top(1);
  scoped.set_filter("nothing matches this");
  EXPECT_EQ(Texts(Diff(a, b, scoped)), Texts(all));
  v1::DiffOptions operators_only;
  operators_only.add_views(v1::DIFF_VIEW_OPERATORS);
  EXPECT_EQ(Diff(a, b, operators_only).findings_size(), 0);
}

TEST(FindingsTest, HtaModeHasNoFindings) {
  v1::DiffOptions hta;
  hta.set_compare(v1::COMPARE_MODE_HTA);
  EXPECT_EQ(
      Diff(Profile("a", Model(100, 100)), Profile("b", Model(400, 110)), hta)
          .findings_size(),
      0);
}

}  // namespace
}  // namespace profdiff::differ
