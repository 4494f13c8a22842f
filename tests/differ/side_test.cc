// One side of a diff (differ/side.h) on a hand-built digest: run values are
// means over the workers of per-step means or totals, samples are padded with
// zeros for the slots of workers without the row.
#include "differ/side.h"

#include <gtest/gtest.h>

namespace profdiff::differ {
namespace {

// Two workers with 3 and 1 kept steps (4 slots); one row only the first has.
v1::RunDigest TwoWorkers() {
  v1::RunDigest digest;
  digest.set_run("r");
  digest.add_ranks(0);
  digest.add_ranks(1);
  digest.set_slots(4);
  return digest;
}

// A metric of the first worker only: 10, 20, 30 us in its 3 steps.
v1::ReducedMetric FirstWorkerOnly() {
  v1::ReducedMetric m;
  m.set_per_step(20);  // the mean of its slots
  m.set_total(60);
  m.mutable_samples()->set_count(3);
  m.mutable_samples()->set_mean(20);
  m.mutable_samples()->set_m2(200);
  return m;
}

TEST(SideTest, RunValueIsTheMeanOverWorkersOfPerStepMeansOrTotals) {
  const v1::RunDigest digest = TwoWorkers();
  const Side per_step(digest, v1::NORMALIZATION_PER_STEP, "baseline");
  EXPECT_TRUE(per_step.per_step());
  EXPECT_EQ(per_step.workers(), 2u);
  EXPECT_EQ(per_step.label(), "baseline");
  EXPECT_EQ(&per_step.digest(), &digest);
  EXPECT_DOUBLE_EQ(per_step.Value(FirstWorkerOnly()), 10);  // the other: 0
  const Side total(digest, v1::NORMALIZATION_TOTAL, "experimental");
  EXPECT_FALSE(total.per_step());
  EXPECT_DOUBLE_EQ(total.Value(FirstWorkerOnly()), 30);
  // Unspecified is per step.
  EXPECT_TRUE(Side(digest, v1::NORMALIZATION_UNSPECIFIED, "x").per_step());
}

TEST(SideTest, SamplesArePaddedWithZerosToEverySlot) {
  const v1::RunDigest digest = TwoWorkers();
  const Side side(digest, v1::NORMALIZATION_PER_STEP, "baseline");
  const v1::Moments samples = side.Samples(FirstWorkerOnly());
  // 10, 20, 30 and a 0: mean 15, m2 = 25 + 25 + 225 + 225.
  EXPECT_EQ(samples.count(), 4);
  EXPECT_DOUBLE_EQ(samples.mean(), 15);
  EXPECT_DOUBLE_EQ(samples.m2(), 500);
}

TEST(SideTest, ARowTheSideLacksIsZeroInEverySlot) {
  const v1::RunDigest digest = TwoWorkers();
  const Side side(digest, v1::NORMALIZATION_PER_STEP, "baseline");
  EXPECT_DOUBLE_EQ(side.Value(nullptr, 0), 0);
  const v1::Moments none = side.Samples(nullptr, 2);
  EXPECT_EQ(none.count(), 4);
  EXPECT_DOUBLE_EQ(none.mean(), 0);
  EXPECT_DOUBLE_EQ(none.m2(), 0);
  // A metric index past the row's metrics is the same.
  google::protobuf::RepeatedPtrField<v1::ReducedMetric> metrics;
  *metrics.Add() = FirstWorkerOnly();
  EXPECT_DOUBLE_EQ(side.Value(&metrics, 0), 10);
  EXPECT_DOUBLE_EQ(side.Value(&metrics, 1), 0);
  EXPECT_EQ(side.Samples(&metrics, 0).count(), 4);
  EXPECT_EQ(side.Samples(&metrics, 5).count(), 4);
}

TEST(SideTest, MeanOfASideWithoutWorkersIsZero) {
  const v1::RunDigest empty;
  const Side side(empty, v1::NORMALIZATION_PER_STEP, "baseline");
  EXPECT_EQ(side.workers(), 0u);
  EXPECT_DOUBLE_EQ(side.Mean(50), 0);
  const v1::RunDigest digest = TwoWorkers();
  EXPECT_DOUBLE_EQ(Side(digest, v1::NORMALIZATION_TOTAL, "b").Mean(50), 25);
}

TEST(SideTest, DeltaPctIsRelativeToTheBaselineAndZeroFromZero) {
  EXPECT_DOUBLE_EQ(DeltaPct(200, 250), 25);
  EXPECT_DOUBLE_EQ(DeltaPct(200, 100), -50);
  EXPECT_DOUBLE_EQ(DeltaPct(0, 100), 0);
  EXPECT_DOUBLE_EQ(DeltaPct(-10, -5), -50);  // (b - a) / a, sign of a kept
}

}  // namespace
}  // namespace profdiff::differ
