// The communication diff (differ/communication_diff.h): collectives of two
// hand-built runs compared per collective and per rank, and the straggler
// verdict's words.
#include "differ/communication_diff.h"

#include <vector>

#include <gtest/gtest.h>

#include "analysis/run_digest.h"
#include "tests/differ/findings/finding_fixture.h"

namespace profdiff::differ {
namespace {

v1::StragglerVerdict Verdict(bool found, int rank, int last, int instances,
                             const std::string& collective, int matched) {
  v1::StragglerVerdict v;
  v.set_found(found);
  v.set_rank(rank);
  v.set_last_arrivals(last);
  v.set_instances(instances);
  v.set_share(instances == 0 ? 0 : static_cast<double>(last) / instances);
  v.set_collective(collective);
  v.set_matched(matched);
  return v;
}

TEST(StragglerVerdictTextTest, AFoundStragglerNamesItsRankAndShare) {
  EXPECT_EQ(StragglerVerdictText(Verdict(true, 1, 46, 50, "all_reduce", 50)),
            "straggler: rank 1, last to arrive in 92% of all_reduces (46 of "
            "50)");
}

TEST(StragglerVerdictTextTest, NoStragglerStillNamesTheMostOftenLast) {
  EXPECT_EQ(StragglerVerdictText(Verdict(false, 0, 11, 20, "collectives", 20)),
            "no straggler: most often last to arrive rank 0, in 55% of "
            "collectives (11 of 20)");
}

TEST(StragglerVerdictTextTest, TiesAndSingleRankRunsSaySo) {
  EXPECT_EQ(StragglerVerdictText(Verdict(false, -1, 0, 0, "all_reduce", 8)),
            "no rank was last alone in any of 8 instances");
  EXPECT_EQ(StragglerVerdictText(v1::StragglerVerdict()),
            "no collective ran on two ranks");
}

TEST(StragglerVerdictTextTest, LastArrivalShareRoundsAndPluralizesOnce) {
  EXPECT_EQ(LastArrivalShare(Verdict(true, 2, 2, 3, "all_gather", 3)),
            "in 67% of all_gathers (2 of 3)");
  // A name ending in "s" takes no second one.
  EXPECT_EQ(LastArrivalShare(Verdict(true, 2, 1, 1, "barriers", 1)),
            "in 100% of barriers (1 of 1)");
}

// Two ranks; each step two all_reduces of `us[0]` and `us[1]` on rank 0, and
// rank 1 spends `rank1_factor` of that in them (it arrives later when less).
v1::DigestCommunication Communication(const std::vector<double>& us,
                                      double rank1_factor) {
  testing::Rank r0;
  r0.all_reduce_us = us;
  testing::Rank r1 = r0;
  for (double& d : r1.all_reduce_us) d *= rank1_factor;
  const absl::StatusOr<v1::RunDigest> digest =
      analysis::DigestOfRun(testing::Profile("run", {r0, r1}), {});
  EXPECT_TRUE(digest.ok()) << digest.status();
  return digest.ok() ? digest->communication() : v1::DigestCommunication();
}

TEST(DiffCommunicationTest, ComparesCollectivesPerStepMeansOverRanks) {
  const v1::DigestCommunication a = Communication({100, 60}, 0.5);
  const v1::DigestCommunication b = Communication({200, 120}, 0.5);
  const v1::CommunicationDiff diff =
      DiffCommunication(a, b, ChangeThreshold(), /*per_step=*/true);
  ASSERT_EQ(diff.by_collective_size(), 1);
  const v1::CollectiveDiff& row = diff.by_collective(0);
  EXPECT_EQ(row.collective(), "all_reduce");
  // Per step: rank 0 160 us, rank 1 80 us; their mean is 120.
  EXPECT_NEAR(row.baseline().time_us(), 120, 1e-9);
  EXPECT_NEAR(row.experimental().time_us(), 240, 1e-9);
  EXPECT_NEAR(row.delta().time_us(), 120, 1e-9);
  EXPECT_DOUBLE_EQ(row.baseline().calls(), 2);
  EXPECT_DOUBLE_EQ(row.delta().calls(), 0);
  EXPECT_EQ(row.change(), v1::CHANGE_INCREASED);
  EXPECT_TRUE(row.time_noise().significant());
  EXPECT_FALSE(row.calls_noise().significant());
  ASSERT_EQ(diff.ranks_size(), 2);
  EXPECT_EQ(diff.ranks(0).rank(), 0);
  EXPECT_EQ(diff.ranks(1).rank(), 1);
  EXPECT_EQ(diff.baseline_verdict(), StragglerVerdictText(a.straggler()));
  EXPECT_EQ(diff.experimental_instances(), b.instances());
}

TEST(DiffCommunicationTest, TotalsScaleWithTheSteps) {
  const v1::DigestCommunication a = Communication({100, 60}, 0.5);
  const v1::CommunicationDiff diff =
      DiffCommunication(a, a, ChangeThreshold(), /*per_step=*/false);
  ASSERT_EQ(diff.by_collective_size(), 1);
  EXPECT_NEAR(diff.by_collective(0).baseline().time_us(), 120 * testing::kSteps,
              1e-9);
  EXPECT_EQ(diff.by_collective(0).change(), v1::CHANGE_UNCHANGED);
}

TEST(DiffCommunicationTest, ACollectiveOnOneSideIsAddedWithAMissingRankSide) {
  const v1::DigestCommunication none;
  const v1::DigestCommunication b = Communication({100, 60}, 1);
  const v1::CommunicationDiff diff =
      DiffCommunication(none, b, ChangeThreshold(), true);
  ASSERT_EQ(diff.by_collective_size(), 1);
  EXPECT_EQ(diff.by_collective(0).change(), v1::CHANGE_ADDED);
  EXPECT_DOUBLE_EQ(diff.by_collective(0).baseline().time_us(), 0);
  ASSERT_EQ(diff.ranks_size(), 2);
  EXPECT_TRUE(diff.ranks(0).baseline_missing());
  EXPECT_FALSE(diff.ranks(0).experimental_missing());
  EXPECT_EQ(diff.baseline_verdict(), "no collective ran on two ranks");
}

}  // namespace
}  // namespace profdiff::differ
