// The rank the others wait for and the slowest compute
// (differ/findings/stragglers.h): named on the side that has one, the same
// rank on both sides only when the others' wait changed.
#include "differ/findings/stragglers.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ::testing {
namespace {

// The rank with the most compute is "the slowest compute", its own kind: the
// word straggler is kept for the rank the others wait for (issue 44, item 3).
TEST(StragglersTest, ANewSlowestComputeIsNamed) {
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

TEST(StragglersTest, ARankThatArrivesLastIsNamedWithTheOthersWait) {
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

TEST(StragglersTest, TheSameLastRankIsNamedWhenTheOthersWaitChanged) {
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

TEST(StragglersTest, TheSameSlowestComputeOnBothSidesIsNoChange) {
  std::vector<Rank> ranks(4, Model(100, 100));
  ranks[1] = Model(150, 100);
  const v1::DiffReport report = Diff(Profile("a", ranks), Profile("b", ranks));
  ASSERT_EQ(report.findings_size(), 1) << Texts(report);
  EXPECT_EQ(report.findings(0).kind(), v1::FINDING_KIND_NOISE);
}

}  // namespace
}  // namespace profdiff::differ::testing
