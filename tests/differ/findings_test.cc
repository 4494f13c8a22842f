// "What changed" (differ/findings.h) on hand-built profiles: one test per rule
// (headline, nothing significant, where, spread, forward with backward,
// structure, trees that stop aligning, operators replaced, call counts, what
// inside, categories, communication, memory, stragglers), the cap, and that
// every number a finding reads is a row of the same report.
#include "differ/findings.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "differ/differ.h"
#include "differ/module_walk.h"
#include "differ/sentence_parts.h"
#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ {
namespace {

using testing::Backward;
using testing::Diff;
using testing::FirstOf;
using testing::kSteps;
using testing::Node;
using testing::Op;
using testing::Profile;
using testing::Rank;
using testing::Texts;

using ::testing::HasSubstr;
using ::testing::Not;

// A model of two linear layers and their backward nodes.
Rank Model(double linear0, double linear1, double backward_scale = 2) {
  Rank r;
  r.step_us = 100 + (linear0 + linear1) * (1 + backward_scale);
  r.modules = {
      {"Model_0",
       linear0 + linear1,
       {{"Linear_0", linear0, {}, {{"aten::addmm", linear0}}},
        {"Linear_1", linear1, {}, {{"aten::addmm", linear1}}}}},
      Backward("Model_0.backward", (linear0 + linear1) * backward_scale,
               {Backward("Linear_1.backward", linear1 * backward_scale),
                Backward("Linear_0.backward", linear0 * backward_scale)})};
  r.operators = {{"aten::addmm", linear0 + linear1, 2},
                 {"aten::mm", (linear0 + linear1) * backward_scale, 2}};
  return r;
}

TEST(FindingsTest, HeadlineSaysTheStepTimeChangeAndItsInterval) {
  const v1::DiffReport report =
      Diff(Profile("a", Model(100, 100)), Profile("b", Model(400, 100)));
  ASSERT_GE(report.findings_size(), 2) << Texts(report);
  const v1::Finding& headline = report.findings(0);
  EXPECT_EQ(headline.kind(), v1::FINDING_KIND_STEP_TIME);
  EXPECT_TRUE(headline.significant());
  EXPECT_THAT(headline.text(),
              HasSubstr("Step time 700 us -> 1.6 ms per step (+900 us, +129%), "
                        "significant (95% CI of the delta"));
  EXPECT_DOUBLE_EQ(headline.delta_us(), 900);
  EXPECT_DOUBLE_EQ(headline.share_of_step_change(), 1);
  ASSERT_EQ(headline.evidence_size(), 1);
  EXPECT_EQ(headline.evidence(0).table(), v1::EVIDENCE_TABLE_OVERVIEW);
  EXPECT_EQ(headline.evidence(0).name(), "Average step time");
}

TEST(FindingsTest, NothingSignificantSaysSoWithTheNoise) {
  const v1::DiffReport report =
      Diff(Profile("a", Model(100, 100)), Profile("b", Model(100, 100)));
  ASSERT_EQ(report.findings_size(), 1) << Texts(report);
  const v1::Finding& f = report.findings(0);
  EXPECT_EQ(f.kind(), v1::FINDING_KIND_NOISE);
  EXPECT_FALSE(f.significant());
  EXPECT_THAT(f.text(), HasSubstr("No significant change: step time 700 us -> "
                                  "700 us per step (0 us, 0%)"));
  EXPECT_THAT(f.text(), HasSubstr("includes 0 (thresholds: 5% and 0.7 us)"));
  EXPECT_THAT(f.text(), HasSubstr("per-step spread"));
}

TEST(FindingsTest, SmallChangeUnderTheThresholdIsNoChange) {
  // 2% slower with a tight spread: the interval excludes 0, the 5% threshold
  // does not pass.
  const v1::DiffReport report =
      Diff(Profile("a", Model(100, 100)), Profile("b", Model(109.33, 100)));
  ASSERT_EQ(report.findings_size(), 1) << Texts(report);
  EXPECT_EQ(report.findings(0).kind(), v1::FINDING_KIND_NOISE);
  EXPECT_THAT(report.findings(0).text(),
              HasSubstr("excludes 0 but the delta is under the thresholds"));
}

TEST(FindingsTest, WhereWalksIntoTheModuleThatHoldsMostOfTheChange) {
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

TEST(FindingsTest, WhatNamesTheOperatorsInsideTheModule) {
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

TEST(FindingsTest, ChangeSpreadOverManyChildrenStopsAtTheirParent) {
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

TEST(FindingsTest, ChangeSpreadOverTheTopLevelNamesTheLargestParts) {
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

TEST(FindingsTest, AddedBlocksAreAStructuralChangeOfTheModule) {
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

TEST(FindingsTest, TreesThatStopAligningSayOnlyTheTopIsComparable) {
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

TEST(FindingsTest, OperatorsRanOnOneSideAreNamedAsReplaced) {
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

TEST(FindingsTest, CallCountsThatMovedWhileTheModulesDidNotAreNamed) {
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

TEST(FindingsTest, CallCountsFollowingAddedModulesAreNotRepeated) {
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

TEST(FindingsTest, CategoriesAndCommunicationThatExplainTenPercent) {
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

TEST(FindingsTest, PeakMemoryThatMovedTenPercent) {
  Rank a = Model(100, 100), b = Model(100, 100);
  a.peak_memory_bytes = 1024.0 * 1024 * 1024;
  b.peak_memory_bytes = 1.5 * 1024 * 1024 * 1024;
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  const v1::Finding* memory = FirstOf(report, v1::FINDING_KIND_MEMORY);
  ASSERT_NE(memory, nullptr) << Texts(report);
  EXPECT_EQ(memory->text(), "Peak memory 1.00 GiB -> 1.50 GiB (+50.0%).");
  EXPECT_DOUBLE_EQ(memory->delta_bytes(), 0.5 * 1024 * 1024 * 1024);
  // Memory alone is something that changed: no "no significant change".
  EXPECT_EQ(report.findings(0).kind(), v1::FINDING_KIND_STEP_TIME);
}

TEST(FindingsTest, PeakMemorySaysWhereItIsAndWhoAllocatesMore) {
  Rank a = Model(100, 100), b = Model(100, 100);
  a.peak_memory_bytes = 1 << 20;
  b.peak_memory_bytes = 4 << 20;
  a.peak_operator = "aten::relu";
  b.peak_operator = "aten::addmm";
  b.peak_module = "Model_0/Linear_1";
  a.mm_allocation_bytes = 1 << 20;
  b.mm_allocation_bytes = 3 << 20;
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  const v1::Finding* memory = FirstOf(report, v1::FINDING_KIND_MEMORY);
  ASSERT_NE(memory, nullptr) << Texts(report);
  EXPECT_EQ(memory->text(),
            "Peak memory 1.0 MiB -> 4.0 MiB (+300%); on cpu the experimental "
            "peak is in aten::addmm (Linear_1, step 2), and aten::mm allocates "
            "1.0 MiB -> 3.0 MiB per step (+200%), the largest change.");
  // A smaller peak names the baseline's place.
  const v1::DiffReport reversed = Diff(Profile("b", b), Profile("a", a));
  const v1::Finding* smaller = FirstOf(reversed, v1::FINDING_KIND_MEMORY);
  ASSERT_NE(smaller, nullptr);
  EXPECT_THAT(smaller->text(),
              HasSubstr("on cpu the baseline peak is in aten::addmm"));
}

// Regression for #44: the peak's step is the trace's ProfilerStep#N, as the
// steps view prints it, not its index among the kept steps.
TEST(FindingsTest, PeakMemoryPlaceSaysTheTracesStepId) {
  Rank a = Model(100, 100), b = Model(100, 100);
  a.peak_memory_bytes = 1 << 20;
  b.peak_memory_bytes = 4 << 20;
  b.peak_operator = "aten::addmm";
  b.peak_module = "Model_0/Linear_1";
  v1::RunProfile experimental = Profile("b", b);
  // A capture that began at ProfilerStep#6: kept steps 6..9, the peak in the
  // second (index 1), ProfilerStep#7.
  for (v1::WorkerProfile& w : *experimental.mutable_workers()) {
    for (int s = 0; s < w.steps_size(); ++s)
      w.mutable_steps(s)->set_step(6 + s);
    w.mutable_memory(0)->set_peak_step(7);
  }
  const v1::DiffReport report = Diff(Profile("a", a), experimental);
  const v1::Finding* memory = FirstOf(report, v1::FINDING_KIND_MEMORY);
  ASSERT_NE(memory, nullptr) << Texts(report);
  EXPECT_THAT(memory->text(),
              HasSubstr("the experimental peak is in aten::addmm (Linear_1, "
                        "step 7)"));
  // A profile from before the step id was kept says which kept step it was
  // (index 1: the second), never a bare index.
  experimental.mutable_workers(0)->mutable_memory(0)->clear_peak_step();
  const v1::DiffReport old = Diff(Profile("a", a), experimental);
  const v1::Finding* old_memory = FirstOf(old, v1::FINDING_KIND_MEMORY);
  ASSERT_NE(old_memory, nullptr) << Texts(old);
  EXPECT_THAT(old_memory->text(),
              HasSubstr("aten::addmm (Linear_1, kept step 2)"));
}

// The rank with the most compute is "the slowest compute", its own kind: the
// word straggler is kept for the rank the others wait for (issue 44, item 3).
TEST(FindingsTest, ANewSlowestComputeIsNamed) {
  std::vector<Rank> a(4, Model(100, 100)), b(4, Model(100, 100));
  b[2] = Model(150, 100);
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  const v1::Finding* slowest =
      FirstOf(report, v1::FINDING_KIND_SLOWEST_COMPUTE);
  ASSERT_NE(slowest, nullptr) << Texts(report);
  EXPECT_EQ(slowest->text(),
            "Rank 2 has the slowest compute in the experimental run: 850 us of "
            "compute per step against a median of 700 us on the other ranks "
            "(+21.4%).");
  ASSERT_EQ(slowest->evidence_size(), 1);
  EXPECT_EQ(slowest->evidence(0).name(), "experimental rank 2");
  EXPECT_EQ(FirstOf(report, v1::FINDING_KIND_STRAGGLER), nullptr)
      << Texts(report);
}

TEST(FindingsTest, MoreSmallerAllReducesAreACommunicationFinding) {
  Rank a = Model(100, 100), b = Model(100, 100);
  a.all_reduce_us = {40, 40};
  b.all_reduce_us = std::vector<double>(8, 15);
  b.all_reduce_bytes = 1 << 20;
  const v1::DiffReport report = Diff(Profile("a", std::vector<Rank>(4, a)),
                                     Profile("b", std::vector<Rank>(4, b)));
  const v1::Finding* f = FirstOf(report, v1::FINDING_KIND_COMMUNICATION);
  ASSERT_NE(f, nullptr) << Texts(report);
  EXPECT_EQ(f->text(),
            "all_reduce: 2 -> 8 calls per step (+300%), 4.0 MiB -> 1.0 MiB per "
            "call; time 80 us -> 120 us (transfer 80 us -> 120 us, wait 0.0 "
            "us -> 0.0 us), bus bandwidth 157 GB/s -> 105 GB/s.");
  // busbw: 8 MiB / 80 us = 104.9 GB/s x 2(4-1)/4 = 157; 8 MiB / 120 us x 1.5.
  ASSERT_EQ(f->evidence_size(), 1);
  EXPECT_EQ(f->evidence(0).table(), v1::EVIDENCE_TABLE_COMMUNICATION);
  EXPECT_EQ(f->evidence(0).name(), "all_reduce");
  EXPECT_DOUBLE_EQ(f->evidence(0).experimental_calls(), 8);
}

TEST(FindingsTest, ARankThatArrivesLastIsNamedWithTheOthersWait) {
  // Baseline: equal durations, nobody last. Experimental: rank 2 takes 10 us
  // where the others take 60: it arrives last and they wait 50 per call.
  Rank even = Model(100, 100);
  even.all_reduce_us = {60, 60};
  Rank late = even;
  late.all_reduce_us = {10, 10};
  std::vector<Rank> b(4, even);
  b[2] = late;
  const v1::DiffReport report =
      Diff(Profile("a", std::vector<Rank>(4, even)), Profile("b", b));
  const v1::Finding* f = FirstOf(report, v1::FINDING_KIND_STRAGGLER);
  ASSERT_NE(f, nullptr) << Texts(report);
  EXPECT_EQ(f->text(),
            "Rank 2 is the straggler in the experimental run: last to arrive "
            "at the collectives in 100% of all_reduces (8 of 8); the other "
            "ranks wait 0.0 us -> 100 us per step (new).");
  EXPECT_EQ(f->evidence_size(), 3);  // the other ranks' wait rows
  EXPECT_EQ(report.communication().baseline_verdict(),
            "no rank was last alone in any of 8 instances");
}

TEST(FindingsTest, TheSameLastRankIsNamedWhenTheOthersWaitChanged) {
  // Rank 2 arrives last on both sides; the others wait 10 us per call for it
  // in the baseline and 50 in the experimental run.
  Rank even = Model(100, 100);
  even.all_reduce_us = {60, 60};
  Rank a_late = even, b_late = even;
  a_late.all_reduce_us = {50, 50};
  b_late.all_reduce_us = {10, 10};
  std::vector<Rank> a(4, even), b(4, even);
  a[2] = a_late;
  b[2] = b_late;
  const v1::DiffReport report = Diff(Profile("a", a), Profile("b", b));
  const v1::Finding* f = FirstOf(report, v1::FINDING_KIND_STRAGGLER);
  ASSERT_NE(f, nullptr) << Texts(report);
  EXPECT_EQ(f->text(),
            "Rank 2 is the straggler in both runs, last to arrive at the "
            "collectives (baseline in 100% of all_reduces (8 of 8); "
            "experimental in 100% of all_reduces (8 of 8)); the other ranks "
            "wait 20 us -> 100 us per step (+400%).");
  EXPECT_EQ(f->evidence_size(), 3);
  // Against itself: the same straggler, the same wait, nothing to say.
  EXPECT_EQ(FirstOf(Diff(Profile("a", a), Profile("b", a)),
                    v1::FINDING_KIND_STRAGGLER),
            nullptr);
}

TEST(FindingsTest, TheSameSlowestComputeOnBothSidesIsNoChange) {
  std::vector<Rank> ranks(4, Model(100, 100));
  ranks[1] = Model(150, 100);
  const v1::DiffReport report = Diff(Profile("a", ranks), Profile("b", ranks));
  ASSERT_EQ(report.findings_size(), 1) << Texts(report);
  EXPECT_EQ(report.findings(0).kind(), v1::FINDING_KIND_NOISE);
}

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

TEST(ModuleWalkTest, BackwardNodesPairWithTheirModuleByPath) {
  const v1::DiffReport report =
      Diff(Profile("a", Model(100, 100)), Profile("b", Model(400, 110)));
  const BackwardIndex index(report.modules());
  const v1::ModuleDiffNode& model = report.modules().children(0);
  ASSERT_EQ(model.name(), "Model_0");
  const v1::ModuleDiffNode* backward = index.BackwardOf(model);
  ASSERT_NE(backward, nullptr);
  EXPECT_EQ(backward->name(), "Model_0.backward");
  EXPECT_TRUE(index.IsBackwardOfModule(*backward));
  EXPECT_EQ(index.BackwardOf(*backward), nullptr);
}

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

}  // namespace
}  // namespace profdiff::differ
