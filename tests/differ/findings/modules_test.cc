// Where in the module tree the change is (differ/findings/modules.h): the
// walk into the module that holds most of it (with its backward), a change
// spread over sub-modules, sub-modules added, and trees that stop aligning.
#include "differ/findings/modules.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ::testing {
namespace {

using ::testing::HasSubstr;

TEST(ModulesTest, WhereWalksIntoTheModuleThatHoldsMostOfTheChange) {
  const v1::DiffReport report =
      Diff(Profile("a", Model(100, 100)), Profile("b", Model(400, 110)));
  const v1::Finding* where = FirstOf(report, v1::FINDING_KIND_MODULE);
  ASSERT_NE(where, nullptr) << Texts(report);
  // Linear_0: forward +300, backward +600 of the step's +930.
  EXPECT_THAT(where->text(),
              HasSubstr("Linear_0 (in Model_0) changed by +900 us per step "
                        "(forward +300 us, backward +600 us), 97% of the "
                        "step-time change"));
  EXPECT_DOUBLE_EQ(where->delta_us(), 900);
  ASSERT_EQ(where->evidence_size(), 2);
  EXPECT_EQ(where->evidence(0).path(), "Model_0/Linear_0");
  EXPECT_EQ(where->evidence(1).path(), "Model_0.backward/Linear_0.backward");
  // The evidence is the report's own module rows.
  for (const v1::FindingEvidence& e : where->evidence()) {
    const v1::ModuleDiffNode* node = nullptr;
    std::vector<const v1::ModuleDiffNode*> stack = {&report.modules()};
    while (!stack.empty()) {
      const v1::ModuleDiffNode* n = stack.back();
      stack.pop_back();
      if (n->index_path() == e.index_path()) node = n;
      for (const v1::ModuleDiffNode& c : n->children()) stack.push_back(&c);
    }
    ASSERT_NE(node, nullptr) << e.index_path();
    EXPECT_EQ(node->name(), e.name());
    EXPECT_DOUBLE_EQ(node->delta().compare_us(), e.delta());
    EXPECT_DOUBLE_EQ(node->baseline().compare_us(), e.baseline());
  }
}

TEST(ModulesTest, ChangeSpreadOverManyChildrenStopsAtTheirParent) {
  Rank a, b;
  for (Rank* r : {&a, &b}) {
    const double each = r == &a ? 100 : 200;
    Node block{"Blocks_0", 4 * each};
    for (int i = 0; i < 4; ++i)
      block.children.push_back({"Block_" + std::to_string(i), each});
    r->modules = {block, {"Head_0", 100}};
    r->step_us = 4 * each + 100;
  }
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  const v1::Finding* where = FirstOf(report, v1::FINDING_KIND_MODULE);
  ASSERT_NE(where, nullptr) << Texts(report);
  EXPECT_THAT(where->text(),
              HasSubstr("Blocks_0 changed by +400 us per step, 100% of the "
                        "step-time change; spread over its sub-modules "
                        "Block_0 +100 us, Block_1 +100 us, Block_2 +100 us "
                        "and 1 more."));
}

TEST(ModulesTest, ChangeSpreadOverTheTopLevelNamesTheLargestParts) {
  Rank a, b;
  a.modules = {{"A_0", 100}, {"B_0", 100}, {"C_0", 100}};
  b.modules = {{"A_0", 300}, {"B_0", 250}, {"C_0", 200}};
  a.step_us = 300;
  b.step_us = 750;
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  const v1::Finding* where = FirstOf(report, v1::FINDING_KIND_MODULE);
  ASSERT_NE(where, nullptr) << Texts(report);
  EXPECT_THAT(where->text(),
              HasSubstr("No one module holds most of the change; it is spread "
                        "over A_0 +200 us, B_0 +150 us and C_0 +100 us per "
                        "step"));
}

TEST(ModulesTest, AddedBlocksAreAStructuralChangeOfTheModule) {
  Rank a, b;
  a.modules = {
      {"Net_0", 300, {{"Stage_0", 200, {{"Block_0", 200}}}, {"Head_0", 100}}}};
  b.modules = {{"Net_0",
                700,
                {{"Stage_0",
                  600,
                  {{"Block_0", 200}, {"Block_1", 200}, {"Block_2", 200}}},
                 {"Head_0", 100}}}};
  a.step_us = 300;
  b.step_us = 700;
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  ASSERT_GE(report.findings_size(), 2) << Texts(report);
  const v1::Finding& structure = report.findings(1);
  EXPECT_EQ(structure.kind(), v1::FINDING_KIND_STRUCTURE);
  EXPECT_THAT(structure.text(),
              HasSubstr("Stage_0 (in Net_0) changed by +400 us per step, 100% "
                        "of the step-time change; its sub-modules went from 1 "
                        "to 3, 2 Block added."));
}

TEST(ModulesTest, TreesThatStopAligningSayOnlyTheTopIsComparable) {
  Rank a, b;
  a.modules = {{"Wrapper_0", 300, {{"Mlp_0", 300, {{"Linear_0", 300}}}}}};
  b.modules = {{"Wrapper_0", 300, {{"FlatMlp_0", 300}}}};
  a.step_us = b.step_us = 300;
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  ASSERT_GE(report.findings_size(), 2) << Texts(report);
  EXPECT_EQ(report.findings(0).kind(), v1::FINDING_KIND_STEP_TIME);
  EXPECT_THAT(report.findings(0).text(), HasSubstr("not significant"));
  EXPECT_EQ(report.findings(1).kind(), v1::FINDING_KIND_STRUCTURE);
  EXPECT_THAT(report.findings(1).text(),
              HasSubstr("Only Wrapper_0 and what is above it can be compared: "
                        "below it nothing aligns (baseline Mlp_0; experimental "
                        "FlatMlp_0); Wrapper_0 0 us per step, not "
                        "significant."));
}

}  // namespace
}  // namespace profdiff::differ::testing
